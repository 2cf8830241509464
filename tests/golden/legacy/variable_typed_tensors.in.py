import numpy as np
import torch
from torch.autograd import Variable

cuda = True if torch.cuda.is_available() else False
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
LongTensor = torch.cuda.LongTensor if cuda else torch.LongTensor


def batch(imgs, labels, net):
    real = Variable(imgs.type(Tensor))
    z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], 8))))
    valid = Variable(Tensor(imgs.size(0), 1).fill_(1.0), requires_grad=False)
    y = Variable(labels.type(LongTensor))
    with torch.no_grad():
        sample = net(Variable(z.data, volatile=True))
    mask = torch.ByteTensor([1, 0]).type(torch.cuda.ByteTensor if cuda else torch.ByteTensor)
    assert isinstance(real, torch.autograd.Variable) and isinstance(real, torch.FloatTensor)
    return real, valid, y, sample, mask, torch.DoubleTensor(2, 3), torch.cuda.HalfTensor([1.0])
