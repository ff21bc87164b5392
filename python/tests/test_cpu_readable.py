"""Which views the kernels read in place and which they get a contiguous copy of:
one rule (fattn.interface._readable) for the forward's q, k, v and the backward's
q, k, v, out and dout (no GPU, no torch: a stand-in for a tensor's metadata)."""
from types import SimpleNamespace

import pytest

from fattn import backward, interface
from fattn.interface import _readable, _readable_in_place


class View:
    """A tensor's shape, strides (in elements), data pointer and element size."""

    def __init__(self, shape, strides, ptr=0, element_size=2):
        self.shape, self._strides = tuple(shape), tuple(strides)
        self._ptr, self._es = ptr, element_size

    def dim(self):
        return len(self.shape)

    def stride(self, i=None):
        return self._strides if i is None else self._strides[i]

    def data_ptr(self):
        return self._ptr

    def element_size(self):
        return self._es

    def clone(self, memory_format=None):
        assert memory_format == "contiguous"
        return ("copy", self)


@pytest.fixture(autouse=True)
def no_torch(monkeypatch):
    monkeypatch.setattr(interface, "_torch", lambda: SimpleNamespace(contiguous_format="contiguous"))


def bshd(b=2, s=100, h=4, d=64):
    return (b, s, h, d), (s * h * d, h * d, d, 1)


@pytest.mark.parametrize("view,in_place,in_place_tma", [
    (View(*bshd()), True, True),
    # Rows of 36 16-bit elements: 72-byte strides.
    (View(*bshd(d=36)), False, False),
    # A last dim that is not contiguous (every other element).
    (View((2, 100, 4, 64), (51200, 512, 128, 2)), False, False),
    # Heads broadcast (stride 0): read in place, but not through TMA tensor maps.
    (View((2, 100, 4, 64), (6400, 64, 0, 1)), True, False),
    # A size-1 dim's stride is never read.
    (View((1, 100, 4, 64), (3, 256, 64, 1)), True, True),
])
def test_one_rule(view, in_place, in_place_tma):
    assert _readable_in_place(view, tma=False) == in_place
    assert _readable_in_place(view, tma=True) == in_place_tma
    for tma, expected in ((False, in_place), (True, in_place_tma)):
        assert (_readable(view, tma) is view) == expected
        if not expected:
            assert _readable(view, tma) == ("copy", view)


def test_a_kept_answer_still_checks_the_pointer():
    """The forward keeps _readable_in_place's answer per call shape; the data
    pointer's alignment is checked on every call."""
    shape, strides = bshd()
    assert _readable(View(shape, strides, ptr=32), True, in_place=True) is not None
    assert _readable(View(shape, strides, ptr=8), True, in_place=True)[0] == "copy"
    assert _readable(View(shape, strides), True, in_place=False)[0] == "copy"
    # A data pointer 2 bytes past a 16-byte boundary: strides read in place, a copy.
    misaligned = View(shape, strides, ptr=2)
    assert _readable_in_place(misaligned, tma=True)
    assert _readable(misaligned, False) == ("copy", misaligned)


def test_the_backward_reads_by_the_same_rule():
    assert backward._readable is _readable
