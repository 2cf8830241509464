"""StyleGAN2 parity configuration shared by the torch side (``parity_tests/torch_side/stylegan2.py``),
the Jittor tests (``parity_tests/test_stylegan2.py``) and ``bench/bench_stylegan2.py``: constructor
arguments, inputs, seeds, injected draws.  Pure Python + numpy, importable in both virtualenvs."""
import numpy as np

from porter.prove.common import SeededStream, make_inputs, seeded_array

SEED = 0
NOISE_SEED = 123          # shared-seed stream for noise_mode='random' (see common.SeededStream)
BATCH = 2
RES = 16                  # blocks 4, 8, 16 -> num_ws = 6
Z, C, W, IMG_C = 8, 3, 8, 3
NUM_WS = 6

MAPPING = dict(z_dim=Z, c_dim=C, w_dim=W, num_ws=NUM_WS, num_layers=2)
SYNTHESIS = dict(w_dim=W, img_resolution=RES, img_channels=IMG_C, channel_base=128, channel_max=16, num_fp16_res=0)
GENERATOR = dict(z_dim=Z, c_dim=C, w_dim=W, img_resolution=RES, img_channels=IMG_C,
                 mapping_kwargs=dict(num_layers=2),
                 synthesis_kwargs=dict(channel_base=128, channel_max=16, num_fp16_res=0, conv_clamp=256))
# The fp16 path: the two highest resolutions (8, 16) run in float16, as upstream's num_fp16_res.
GENERATOR_FP16 = dict(GENERATOR, synthesis_kwargs=dict(GENERATOR["synthesis_kwargs"], num_fp16_res=2))
DISCRIMINATOR = dict(c_dim=C, img_resolution=RES, img_channels=IMG_C, channel_base=128, channel_max=16,
                     num_fp16_res=0, conv_clamp=256, epilogue_kwargs=dict(mbstd_group_size=2))
LOSS = dict(style_mixing_prob=0.9, r1_gamma=10, pl_batch_shrink=2, pl_decay=0.01, pl_weight=2)
MIX_CUTOFFS = (3, 6, 2, 5, 1, 4)   # consumed in order, cyclically; 6 = num_ws = no mixing

# Synthesis cases: forward keyword arguments (noise_mode 'random' draws from NOISE_SEED).
SYNTHESIS_CASES = {
    "synthesis_fused_const": dict(noise_mode="const", fused_modconv=True),
    "synthesis_nonfused_const": dict(noise_mode="const", fused_modconv=False),
    "synthesis_nonfused_random": dict(noise_mode="random", fused_modconv=False),
    "synthesis_fused_random": dict(noise_mode="random", fused_modconv=True),
}
SYNTHESIS_INPUTS = {"ws": (BATCH, NUM_WS, W)}
MAPPING_INPUTS = {"z": (BATCH, Z), "c": (BATCH, C)}
MAPPING_FORWARD = dict(truncation_psi=0.7, truncation_cutoff=3)
GENERATOR_INPUTS = {"z": (BATCH, Z), "c": (BATCH, C)}
GENERATOR_FORWARD = dict(truncation_psi=0.7, truncation_cutoff=2, noise_mode="const")
D_INPUTS = {"img": (4, IMG_C, RES, RES), "c": (4, C)}   # 2 minibatch-stddev groups of 2
LOSS_INPUTS = {"real_img": (BATCH, IMG_C, RES, RES), "real_c": (BATCH, C), "gen_z": (BATCH, Z), "gen_c": (BATCH, C)}
LOSS_PHASES = ("Gmain", "Greg", "Dmain", "Dreg")

TRAIN_ITERATIONS = 3
G_OPT = dict(lr=0.0025, betas=[0, 0.99], eps=1e-8)
D_OPT = dict(lr=0.0025, betas=[0, 0.99], eps=1e-8)
REG_INTERVALS = dict(G_reg_interval=4, D_reg_interval=16)
EMA_BETA = 0.9


class Draws:
    """The loss's random draws, from numpy: style-mixing cutoffs from ``MIX_CUTOFFS``, mixing
    latents and path-length noise from one seeded stream.  Each side wraps the arrays into its
    own tensors (``to_tensor``), so both see the same numbers in the same order."""

    def __init__(self, to_tensor, seed=SEED + 500):
        self.to_tensor = to_tensor
        self.stream = SeededStream(seed)
        self.calls = 0

    def mixing(self, ws, z):
        """(cutoff, second latent) for one ``run_G`` call."""
        cutoff = MIX_CUTOFFS[self.calls % len(MIX_CUTOFFS)]
        self.calls += 1
        return cutoff, self.to_tensor(self.stream.normal(tuple(z.shape)))

    def pl_noise(self, img):
        """Path-length noise shaped like ``img``."""
        return self.to_tensor(self.stream.normal(tuple(img.shape)))


def train_batch(iteration):
    """Real images/labels and one latent batch per phase for a training iteration."""
    base = SEED + 10_000 * (iteration + 1)
    real = make_inputs({"real_img": (BATCH, IMG_C, RES, RES)}, base)["real_img"]
    real_c = np.eye(C, dtype=np.float32)[np.arange(BATCH) % C]
    gen_z = [seeded_array((BATCH, Z), base + 100 + k) for k in range(len(LOSS_PHASES))]
    gen_c = [np.eye(C, dtype=np.float32)[(np.arange(BATCH) + k) % C] for k in range(len(LOSS_PHASES))]
    return dict(real_img=real, real_c=real_c, gen_z=gen_z, gen_c=gen_c)
