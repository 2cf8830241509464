"""MCCNet training script in upstream's style (``python -m models_ref.mccnet.train ...``).

An image-folder ``Dataset``, the infinite sampler, two ``DataLoader``s, Adam with
upstream's inverse learning-rate decay, ``zero_grad/backward/step``, and periodic
``torch.save`` of the decoder and MCC module state dicts (``decoder_iter_N.pth``,
``mcc_module_iter_N.pth``) plus a ``save_image`` sample.  ``--load_size``/``--crop_size``
default to upstream's 512/256; tests use tiny images.
"""
import argparse
import os
from pathlib import Path

import torch
import torch.nn as nn
import torch.utils.data as data
from PIL import Image
from PIL import ImageFile
from torchvision import transforms
from torchvision.utils import save_image

from . import net
from .sampler import InfiniteSamplerWrapper

Image.MAX_IMAGE_PIXELS = None  # Disable DecompressionBombError
ImageFile.LOAD_TRUNCATED_IMAGES = True  # Disable OSError: image file is truncated


def train_transform(load_size=512, crop_size=256):
    """Resize to a square ``load_size``, random-crop ``crop_size``, convert to a tensor."""
    transform_list = [
        transforms.Resize(size=(load_size, load_size)),
        transforms.RandomCrop(crop_size),
        transforms.ToTensor()
    ]
    return transforms.Compose(transform_list)


class FlatFolderDataset(data.Dataset):
    """The images of a folder (or of its sub-folders, one level deep), transformed."""

    def __init__(self, root, transform):
        super(FlatFolderDataset, self).__init__()
        self.root = root
        self.path = sorted(os.listdir(self.root))
        if not self.path:
            raise ValueError('no images in {}'.format(self.root))
        if os.path.isdir(os.path.join(self.root, self.path[0])):
            self.paths = []
            for file_name in self.path:
                for file_name1 in sorted(os.listdir(os.path.join(self.root, file_name))):
                    self.paths.append(self.root + "/" + file_name + "/" + file_name1)
        else:
            self.paths = sorted(Path(self.root).glob('*'))
        self.transform = transform

    def __getitem__(self, index):
        path = self.paths[index]
        img = Image.open(str(path)).convert('RGB')
        img = self.transform(img)
        return img

    def __len__(self):
        return len(self.paths)

    def name(self):
        return 'FlatFolderDataset'


def adjust_learning_rate(optimizer, iteration_count):
    """Imitating the original implementation"""
    lr = args.lr / (1.0 + args.lr_decay * iteration_count)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    # Basic options
    parser.add_argument('--content_dir', type=str, required=True,
                        help='Directory path to a batch of content images')
    parser.add_argument('--style_dir', type=str, required=True,
                        help='Directory path to a batch of style images')
    parser.add_argument('--vgg', type=str, default='./experiments/vgg_normalised.pth')

    # training options
    parser.add_argument('--save_dir', default='./experiments',
                        help='Directory to save the model')
    parser.add_argument('--lr', type=float, default=1e-4)
    parser.add_argument('--lr_decay', type=float, default=5e-5)
    parser.add_argument('--max_iter', type=int, default=160000)
    parser.add_argument('--batch_size', type=int, default=8)
    parser.add_argument('--style_weight', type=float, default=10.0)
    parser.add_argument('--content_weight', type=float, default=3.0)
    parser.add_argument('--n_threads', type=int, default=16)
    parser.add_argument('--save_model_interval', type=int, default=10000)
    parser.add_argument('--load_size', type=int, default=512)
    parser.add_argument('--crop_size', type=int, default=256)
    args = parser.parse_args()

    USE_CUDA = torch.cuda.is_available()
    device = torch.device("cuda:0" if USE_CUDA else "cpu")

    if not os.path.exists(args.save_dir):
        os.makedirs(args.save_dir)

    decoder = net.decoder
    vgg = net.vgg

    vgg.load_state_dict(torch.load(args.vgg))
    vgg = nn.Sequential(*list(vgg.children())[:44])
    with torch.no_grad():
        network = net.Net(vgg, decoder)
    network.train()
    decoder.eval()  # upstream does this; the decoder has no train/eval-dependent layer
    network.to(device)

    content_tf = train_transform(args.load_size, args.crop_size)
    style_tf = train_transform(args.load_size, args.crop_size)

    content_dataset = FlatFolderDataset(args.content_dir, content_tf)
    style_dataset = FlatFolderDataset(args.style_dir, style_tf)

    content_iter = iter(data.DataLoader(
        content_dataset, batch_size=args.batch_size,
        sampler=InfiniteSamplerWrapper(content_dataset),
        num_workers=args.n_threads))
    style_iter = iter(data.DataLoader(
        style_dataset, batch_size=args.batch_size,
        sampler=InfiniteSamplerWrapper(style_dataset),
        num_workers=args.n_threads))

    optimizer = torch.optim.Adam([
        {'params': network.decoder.parameters()},
        {'params': network.mcc_module.parameters()}], lr=args.lr)

    for i in range(args.max_iter):
        adjust_learning_rate(optimizer, iteration_count=i)
        content_images = next(content_iter).to(device)
        style_images = next(style_iter).to(device)
        loss_n, loss_c, loss_s, l_identity1, l_identity2, loss_tv, Ics = \
            network(content_images, style_images)
        loss_c = args.content_weight * loss_c
        loss_s = args.style_weight * loss_s
        loss_tv = 10e-5 * loss_tv
        loss = 3000 * loss_n + loss_c + loss_s + (l_identity1 * 70) + (l_identity2 * 1) + loss_tv

        print('iter', i + 1, 'loss', loss.sum().cpu().detach().numpy(),
              "-content:", loss_c.sum().cpu().detach().numpy(),
              "-style:", loss_s.sum().cpu().detach().numpy(),
              "-l1:", l_identity1.sum().cpu().detach().numpy(),
              "-l2:", l_identity2.sum().cpu().detach().numpy(), flush=True)

        optimizer.zero_grad()
        loss.sum().backward()
        optimizer.step()

        if (i + 1) % args.save_model_interval == 0 or (i + 1) == args.max_iter:
            state_dict = network.decoder.state_dict()
            for key in state_dict.keys():  # noqa: SIM118 (upstream MCCNet's code, kept as written)
                state_dict[key] = state_dict[key].to(torch.device('cpu'))
            torch.save(state_dict,
                       '{:s}/decoder_iter_{:d}.pth'.format(args.save_dir,
                                                          i + 1))
            state_dict = network.mcc_module.state_dict()
            for key in state_dict.keys():  # noqa: SIM118 (upstream MCCNet's code, kept as written)
                state_dict[key] = state_dict[key].to(torch.device('cpu'))
            torch.save(state_dict,
                       '{:s}/mcc_module_iter_{:d}.pth'.format(args.save_dir,
                                                             i + 1))
            save_image(Ics.detach().cpu(),
                       '{:s}/sample_iter_{:d}.jpg'.format(args.save_dir, i + 1))
