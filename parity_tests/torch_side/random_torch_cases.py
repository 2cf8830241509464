"""What ``parity_tests/test_random_torch.py`` draws, shared by the torch and Jittor sides.

Plain Python: the seeds, ranges and sizes only.  Each side runs the same draws through its own
API (torch's, or ``shims.random_torch``/``shims.data``) and the results are compared exactly.
"""
import math

#: seeds as users pass them: small, beyond 32 bits, negative, beyond 63 bits
SEEDS = [0, 1, 42, 123456789, 2 ** 32 + 5, -1, 2 ** 63 + 7]
#: randint ranges around torch's switch from 32-bit to 64-bit draws (a range of 2**28)
RANDINT = [(0, 5), (3, 17), (-4, 100), (0, 2 ** 28 - 1), (0, 2 ** 28), (-2 ** 27, 2 ** 27),
           (0, 2 ** 32 - 1), (0, 2 ** 32), (5, 2 ** 40)]
#: uniform_ bounds torchvision draws with (ColorJitter, RandomResizedCrop's log-ratio, rotation
#: degrees, RandomAffine's translation, GaussianBlur's sigma)
UNIFORM = [(0.0, 1.0), (0.6, 1.4), (-0.1, 0.1), (0.08, 1.0), (-30.0, 45.0),
           (math.log(3 / 4), math.log(4 / 3)), (-1.7, 1.7), (0.1, 2.0), (-2.3, 1e-3)]
PERM_SIZES = [0, 1, 2, 5, 33, 1000]
#: normal_ sizes: below 16 (float64 pairs, one value cached), 16 and over (float32 blocks of 16)
NORMAL_SIZES = [1, 3, 15, 16, 17, 40, 1000]
N_FLOAT = 4000      # floats per uniform draw (each uniform_ case rounds thousands of values)
N_INT = 50
EPOCHS = 3

#: samples of the loader whose samples draw (``Drawing`` on each side)
DRAWING_LEN = 9
#: WeightedRandomSampler's weights: StarGAN v2's balanced sampler (1 / its class's count) and others
WEIGHTS = [1 / 3, 1 / 3, 1 / 3, 0.5, 0.5, 2.0, 0.0, 1e-3]
