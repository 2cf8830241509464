"""``torch.nn.init``: random initialisers compare moments of a large weight (different
generators by design); deterministic ones compare values."""
from ..case import case

A = "init"
W = "w = torch.empty(256, 128)\n"
# Moments of 32768 draws: standard errors ~0.006 of the target std; 5% of std is >8 sigma.
STATS = dict(compare="stats", atol=0.005, why="moments of 32768 draws; atol ~5% of the target std", grad=False)


def init(name, call, variant="", **kw):
    kw = {**STATS, **kw}
    return case(A, f"torch.nn.init.{name}", W + call + "\nout = w", variant=variant, **kw)


CASES = [
    init("uniform_", "nn.init.uniform_(w, -0.1, 0.1)"),
    init("uniform_", "nn.init.uniform_(w, a=0.0, b=0.05)", variant="kw"),
    init("normal_", "nn.init.normal_(w, 0.0, 0.02)", atol=0.002),
    init("normal_", "nn.init.normal_(w, mean=0.5, std=0.01)", variant="kw", atol=0.002),
    init("constant_", "nn.init.constant_(w, 0.3)", compare="value", atol=1e-6),
    init("zeros_", "nn.init.zeros_(w)", compare="value", atol=1e-6),
    init("ones_", "nn.init.ones_(w)", compare="value", atol=1e-6),
    init("eye_", "nn.init.eye_(w)", compare="value", atol=1e-6),
    init("xavier_uniform_", "nn.init.xavier_uniform_(w)"),
    init("xavier_uniform_", "nn.init.xavier_uniform_(w, gain=2.0)", variant="gain", atol=0.01),
    init("xavier_normal_", "nn.init.xavier_normal_(w)"),
    init("kaiming_uniform_", "nn.init.kaiming_uniform_(w, a=0.2)", atol=0.01),
    init("kaiming_uniform_", "nn.init.kaiming_uniform_(w, mode='fan_out', nonlinearity='relu')", variant="fan_out", atol=0.01),
    init("kaiming_normal_", "nn.init.kaiming_normal_(w)", atol=0.01),
    init("kaiming_normal_", "nn.init.kaiming_normal_(w, a=0, mode='fan_in', nonlinearity='leaky_relu')", variant="kw", atol=0.01),
    init("trunc_normal_", "nn.init.trunc_normal_(w, std=0.02)", atol=0.002),
    init("orthogonal_", "nn.init.orthogonal_(w)\nw = w.t() @ w", compare="value", atol=1e-4,
         why="w^T w of an orthogonal 256x128 weight is the identity, up to float32 rounding of 256-term sums"),
    case(A, "torch.nn.init.calculate_gain", "out = nn.init.calculate_gain('leaky_relu', 0.2)"),
    case(A, "torch.nn.init.calculate_gain", "out = nn.init.calculate_gain('relu')", variant="relu"),
    init("normal", "nn.init.normal(w, 0.0, 0.02)", atol=0.002),
    init("uniform", "nn.init.uniform(w)"),
    init("constant", "nn.init.constant(w, 0.1)", compare="value", atol=1e-6),
    init("xavier_uniform", "nn.init.xavier_uniform(w)"),
    init("kaiming_normal", "nn.init.kaiming_normal(w)", atol=0.01),
]
