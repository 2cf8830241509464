import torch


class data_prefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        self.x = next(self.loader)
        with torch.cuda.stream(self.stream):
            self.x = self.x.cuda(non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        x = self.x
        self.preload()
        torch.cuda.default_stream().synchronize()
        return x
