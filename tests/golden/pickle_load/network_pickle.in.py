import pickle
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)


class _Unpickler(pickle.Unpickler):  # a subclass, as StyleGAN2-ADA's legacy.py has
    def find_class(self, module, name):
        if module == "old.module":
            return dict
        return super().find_class(module, name)


class _Explicit(pickle.Unpickler):
    def find_class(self, module, name):
        return pickle.Unpickler.find_class(self, module, name)


def load_network(path):
    with open(path, "rb") as f:
        return _Unpickler(f).load()


def load_any(f, data):
    a = pickle.load(f, encoding="latin1")
    b = pickle.loads(data)
    with open("out.pkl", "wb") as g:
        pickle.dump(a, g)  # writing stays the standard library's
    return a, b, pickle.HIGHEST_PROTOCOL
