import torch


def render(n):
    return torch.ones([n, 3])


if __name__ == "__main__":
    torch.set_default_tensor_type('torch.cuda.FloatTensor')
    torch.set_default_tensor_type(torch.FloatTensor)
    torch.set_default_device("cuda")
    torch.set_default_tensor_type(torch.DoubleTensor)
    render(4)
