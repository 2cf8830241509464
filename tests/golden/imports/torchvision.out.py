"""The ways training scripts import torchvision's data pipeline."""
import shims
torchvision = shims.unported("torchvision")
from shims.vision import transforms as T
from shims.vision import datasets, transforms
from shims.vision import functional as TF
from shims.vision.datasets import MNIST


def data(root, img):
    tf = transforms.Compose([transforms.CenterCrop(28), transforms.ToTensor(),
                             transforms.Normalize((0.1307,), (0.3081,))])
    aug = T.Compose([T.CenterCrop(32), torchvision.transforms.RandomAffine(10), T.ToTensor()])  # a leftover: no shim  # jtport: JT001 torchvision.transforms.RandomAffine: no shim yet
    train = datasets.MNIST(root, train=True, download=False, transform=tf)
    test = MNIST(root, train=False, transform=tf)
    cifar = shims.vision.datasets.CIFAR10(root, transform=shims.vision.transforms.ToTensor())
    x = TF.to_tensor(img).unsqueeze(0)
    return shims.data.DataLoader(train, batch_size=4), test, cifar, aug, x
