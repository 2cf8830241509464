// jtport: a float32 CPU convolution forward on Jittor's oneDNN, computed as torch computes it.
// See shims/nn/conv.py for why; built with the flags of Jittor's own oneDNN ops by that module.
#pragma once
#include "op.h"

namespace jittor {

struct JtportConvOp : Op {
    Var* x, * w, * b, * y;
    int strideh, stridew, paddingh, paddingw, dilationh, dilationw, groups;
    // inputs: x (NCHW), w (OIHW: torch's layouts) and optionally the bias b (O); y: NCHW; float32
    JtportConvOp(vector<Var*>&& inputs, int strideh, int stridew, int paddingh, int paddingw, int dilationh=1, int dilationw=1, int groups=1);

    const char* name() const override { return "jtport_conv"; }
    void infer_shape() override;
    DECLARE_jit_run;
};

} // jittor
