"""The check's reference cache (common/refcache.py): no torch needed."""
from common import refcache


def test_one_reference_per_shape():
    # Three variants of shape A then two of shape B, as the launcher orders them:
    # the reference is computed twice (once per shape), reused three times.
    calls = []
    c = refcache.RefCache()

    def ref(shape):
        return lambda: calls.append(shape) or {"y": shape}

    for v, s in [("base", "A"), ("fused", "A"), ("tk", "A"), ("base", "B"), ("fused", "B")]:
        got = c.get(("exp", s, 0, False, 1), ref(s))
        assert got == {"y": s}, v
    assert calls == ["A", "B"]
    assert (c.misses, c.hits) == (2, 3)


def test_key_change_frees_before_computing():
    # The held reference is dropped before the next one is computed: never two at once.
    c = refcache.RefCache()
    c.get(("e", "A", 0, False, 1), lambda: "refA")
    seen = []
    c.get(("e", "B", 0, False, 1), lambda: seen.append(c.value) or "refB")
    assert seen == [None]
    assert c.value == "refB"


def test_backward_and_seed_are_part_of_the_key():
    c = refcache.RefCache()
    n = []
    for key in [("e", "A", 0, False, 1), ("e", "A", 0, True, 1), ("e", "A", 1, True, 1)]:
        c.get(key, lambda: n.append(1) or object())
    assert len(n) == 3


def test_clear():
    c = refcache.RefCache()
    c.get(("e", "A", 0, False, 1), lambda: "x")
    c.clear()
    assert c.value is None
    n = []
    c.get(("e", "A", 0, False, 1), lambda: n.append(1) or "x")
    assert n == [1]


def test_by_shape_groups_keeping_order():
    cells = [("a", "s1"), ("a", "s2"), ("b", "s1"), ("b", "s2"), ("c", "s3"), ("c", "s1")]
    assert refcache.by_shape(cells) == [("a", "s1"), ("b", "s1"), ("c", "s1"), ("a", "s2"), ("b", "s2"), ("c", "s3")]
