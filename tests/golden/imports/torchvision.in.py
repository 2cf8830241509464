"""The ways training scripts import torchvision's data pipeline."""
import torch
import torchvision
import torchvision.transforms as T
from torchvision import datasets, transforms
from torchvision.transforms import functional as TF
from torchvision.datasets import MNIST


def data(root, img):
    tf = transforms.Compose([transforms.CenterCrop(28), transforms.ToTensor(),
                             transforms.Normalize((0.1307,), (0.3081,))])
    aug = T.Compose([T.CenterCrop(32), T.RandomAffine(10), T.ToTensor()])  # a leftover: no shim
    train = datasets.MNIST(root, train=True, download=False, transform=tf)
    test = MNIST(root, train=False, transform=tf)
    cifar = torchvision.datasets.CIFAR10(root, transform=torchvision.transforms.ToTensor())
    x = TF.to_tensor(img).unsqueeze(0)
    return torch.utils.data.DataLoader(train, batch_size=4), test, cifar, aug, x
