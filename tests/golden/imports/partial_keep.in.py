from torch.nn import Conv2d, Weird, MaxPool2d


class Block:
    def __init__(self):
        self.conv = Conv2d(3, 3, 3)
        self.odd = Weird(3)
        self.pool = MaxPool2d(2)
