"""torch's grad-mode switches on Jittor (``shims.grad_mode``): context manager, decorator bare
and called, ``set_grad_enabled`` as a call, nesting."""
import shims
import jittor as jt


def _requires_grad(w):
    return not (w * 2).is_stop_grad()


def test_no_grad_as_bare_and_called_decorator():
    w = jt.ones(2).start_grad()

    @shims.no_grad
    def bare(x):
        return (x * w).sum()

    @shims.no_grad()
    def called(x):
        return (x * w).sum()

    assert bare(jt.ones(2)).is_stop_grad() and called(jt.ones(2)).is_stop_grad()
    assert _requires_grad(w) and shims.is_grad_enabled()


def test_nesting_and_set_grad_enabled():
    w = jt.ones(2).start_grad()
    with shims.no_grad():
        assert not _requires_grad(w) and not shims.is_grad_enabled()
        with shims.enable_grad():
            assert _requires_grad(w)
        assert not _requires_grad(w)
    assert _requires_grad(w)
    shims.set_grad_enabled(False)
    try:
        assert not _requires_grad(w)
    finally:
        shims.set_grad_enabled(True)
    assert _requires_grad(w)
    with shims.set_grad_enabled(False):
        assert not _requires_grad(w)
    assert _requires_grad(w)
    with shims.inference_mode():
        assert not _requires_grad(w)
    with shims.inference_mode(False):
        assert _requires_grad(w)
