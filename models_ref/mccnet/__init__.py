"""MCCNet (Deng et al., "Arbitrary Video Style Transfer via Multi-Channel Correlation", AAAI 2021).

Our torch reference of diyiiyiii/MCCNet, written in the idioms upstream uses so that the
converter meets them: ``net.py`` (VGG-19 encoder and decoder as ``nn.Sequential``, the MCC
module, ``Net`` with its losses), ``function.py`` (``calc_mean_std``, ``mean_variance_norm``,
CORAL), ``sampler.py`` (the infinite sampler) and ``train.py`` (the training script).
State-dict keys and shapes are upstream's, so upstream ``.pth`` files load.
"""
