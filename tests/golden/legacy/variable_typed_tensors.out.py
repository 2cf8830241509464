import numpy as np
import shims
import jittor as jt
from shims.legacy import Variable

cuda = True if jt.has_cuda else False
Tensor = shims.legacy.cuda.FloatTensor if cuda else shims.FloatTensor
LongTensor = shims.legacy.cuda.LongTensor if cuda else shims.LongTensor


def batch(imgs, labels, net):
    real = Variable(shims.tensor_type(imgs, Tensor))
    z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], 8))))
    valid = Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)
    y = Variable(shims.tensor_type(labels, LongTensor))
    with shims.no_grad():
        sample = net(Variable(shims.data_of(z), volatile=True))
    mask = shims.tensor_type(shims.legacy.ByteTensor([1, 0]), shims.legacy.cuda.ByteTensor if cuda else shims.legacy.ByteTensor)
    assert isinstance(real, shims.legacy.Variable) and isinstance(real, shims.FloatTensor)
    return real, valid, y, sample, mask, shims.legacy.DoubleTensor(2, 3), shims.legacy.cuda.HalfTensor([1.0])
