import pickle
import shims
import jittor as jt


class Net(shims.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = jt.nn.Linear(2, 2)


class _Unpickler(shims.pickle.Unpickler):  # a subclass, as StyleGAN2-ADA's legacy.py has
    def find_class(self, module, name):
        if module == "old.module":
            return dict
        return super().find_class(module, name)


class _Explicit(shims.pickle.Unpickler):
    def find_class(self, module, name):
        return shims.pickle.Unpickler.find_class(self, module, name)


def load_network(path):
    with open(path, "rb") as f:
        return _Unpickler(f).load()


def load_any(f, data):
    a = shims.pickle.load(f, encoding="latin1")
    b = shims.pickle.loads(data)
    with open("out.pkl", "wb") as g:
        pickle.dump(a, g)  # writing stays the standard library's
    return a, b, pickle.HIGHEST_PROTOCOL
