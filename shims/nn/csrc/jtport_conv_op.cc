// jtport: see jtport_conv_op.h.  Jittor's own mkl_conv asks oneDNN for a forward_inference
// primitive with every format left to oneDNN, which oneDNN 2.2 serves with its channels-last
// brgemm kernel on AVX-512 CPUs: that kernel sums all kh*kw*C products of an output in one
// float32 chain.  torch asks for forward_training, which brgemm does not take with free
// formats, and gets the blocked direct kernel: a partial sum per 16 input channels, the
// partial sums then added -- 1.3-4.3x less rounding on 3x3 convolutions.  This op is Jittor's
// mkl_conv (jittor/extern/mkl/ops/mkl_conv_op.cc, NCHW/OIHW only) asking for forward_training.
#include <dnnl.hpp>

#include "var.h"
#include "jtport_conv_op.h"

using namespace dnnl;
using namespace std;

namespace jittor {

#ifndef JIT

JtportConvOp::JtportConvOp(vector<Var*>&& inputs, int strideh, int stridew, int paddingh, int paddingw,
                           int dilationh, int dilationw, int groups)
    : strideh(strideh), stridew(stridew), paddingh(paddingh), paddingw(paddingw),
      dilationh(dilationh), dilationw(dilationw), groups(groups) {
    ASSERT(inputs.size() == 2 || inputs.size() == 3) << "jtport_conv: inputs are x, w[, b]";
    x = inputs[0], w = inputs[1], b = inputs.size() == 3 ? inputs[2] : nullptr;
    y = create_output(nullptr, ns_float32);
}

void JtportConvOp::infer_shape() {
    ASSERTop(x->shape.size(),==,4);
    ASSERTop(w->shape.size(),==,4);
    ASSERT(x->dtype() == ns_float32 && w->dtype() == ns_float32) << "jtport_conv: float32 only";
    ASSERTop(w->shape[1] * groups,==,x->shape[1]);
    ASSERTop(w->shape[0] % groups,==,0);
    if (b) ASSERT(b->dtype() == ns_float32 && b->shape.size() == 1 && b->shape[0] == w->shape[0])
        << "jtport_conv: the bias must be float32 of shape (out_channels,)";
    int64 yh = (x->shape[2] + paddingh*2 - w->shape[2]*dilationh + dilationh - 1) / strideh + 1;
    int64 yw = (x->shape[3] + paddingw*2 - w->shape[3]*dilationw + dilationw - 1) / stridew + 1;
    y->set_shape(NanoVector(x->shape[0], w->shape[0], yh, yw));
}

void JtportConvOp::jit_prepare(JK& jk) {
    jk << "«T:f32";
}

#else // JIT
#ifdef JIT_cpu
void JtportConvOp::jit_run() {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);

    const auto& xs = x->shape;
    const auto& ws = w->shape;
    const auto& ys = y->shape;
    memory::dims src_tz = {xs[0], xs[1], xs[2], xs[3]};
    memory::dims wei_tz = groups > 1
        ? memory::dims{groups, ws[0] / groups, ws[1], ws[2], ws[3]}
        : memory::dims{ws[0], ws[1], ws[2], ws[3]};
    memory::dims dst_tz = {ys[0], ys[1], ys[2], ys[3]};
    memory::dims strides = {strideh, stridew};
    memory::dims padding = {paddingh, paddingw};
    memory::dims dilation = {dilationh - 1, dilationw - 1};

    auto user_src = memory({src_tz, dt::f32, tag::nchw}, eng, x->mem_ptr);
    auto user_wei = memory({wei_tz, dt::f32, groups > 1 ? tag::goihw : tag::oihw}, eng, w->mem_ptr);
    auto user_dst = memory({dst_tz, dt::f32, tag::nchw}, eng, y->mem_ptr);

    auto src_md = memory::desc(src_tz, dt::f32, tag::any);
    auto wei_md = memory::desc(wei_tz, dt::f32, tag::any);
    auto dst_md = memory::desc(dst_tz, dt::f32, tag::any);
    auto bia_md = memory::desc({ws[0]}, dt::f32, tag::x);
    // torch adds the bias inside the primitive: into the first block's partial sum
    auto desc = b
        ? convolution_forward::desc(prop_kind::forward_training, algorithm::convolution_direct,
            src_md, wei_md, bia_md, dst_md, strides, dilation, padding, padding)
        : convolution_forward::desc(prop_kind::forward_training, algorithm::convolution_direct,
            src_md, wei_md, dst_md, strides, dilation, padding, padding);
    auto pd = convolution_forward::primitive_desc(desc, eng);

    auto src = user_src, wei = user_wei, dst = user_dst;
    if (pd.src_desc() != user_src.get_desc()) {
        src = memory(pd.src_desc(), eng);
        reorder(user_src, src).execute(s, user_src, src);
    }
    if (pd.weights_desc() != user_wei.get_desc()) {
        wei = memory(pd.weights_desc(), eng);
        reorder(user_wei, wei).execute(s, user_wei, wei);
    }
    if (pd.dst_desc() != user_dst.get_desc())
        dst = memory(pd.dst_desc(), eng);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (b) args.insert({DNNL_ARG_BIAS, memory(bia_md, eng, b->mem_ptr)});
    convolution_forward(pd).execute(s, args);
    if (dst != user_dst)
        reorder(dst, user_dst).execute(s, dst, user_dst);
    s.wait();
}
#endif
#endif // JIT

} // jittor
