"""Declared layouts: offsets follow the declarations; views name the same slots."""
import numpy as np
import pytest

from simcore.layout import Layout


def test_offsets_follow_declarations_and_views_name_them():
    L = Layout("x", start=2)
    a, b = L.field("a"), L.field("b", 3, "three slots")
    L.align(4)
    c = L.field("c", 2)
    assert (a, b, c, L.end, L.size) == (2, 3, 8, 10, 8)
    arr = np.arange(12)
    v = L.views(arr)
    assert v["a"].tolist() == [2] and v["b"].tolist() == [3, 4, 5] and v["c"].tolist() == [8, 9]
    v["a"][0] = -1
    assert arr[2] == -1
    assert "three slots" in L.describe()
    with pytest.raises(ValueError, match="declared twice"):
        L.field("a")


def test_the_engines_layouts_cover_their_constants():
    from bloomsim import engine as E
    names = E.G.fields
    assert names["round"].offset == E.G_ROUND and names["seats"].offset == E.G_SEAT
    assert E.SEAT.fields["policy"].offset == E.S_POLICY and E.N_SEAT == E.SEAT.size
    ends = [(f.offset, f.offset + f.size) for f in E.G.fields.values()]
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:]))    # packed, no overlap


def test_the_lapin_layouts_keep_their_order():
    from rapinsim import policies as P
    from rapinsim import stats as S
    assert P.N_OBS == P.OBS.size and P.OBS.fields["die"].offset == P.OB_DIE
    assert S.SEAT.fields["items"].offset == S.S_ITEM and S.N_SEAT == S.SEAT.size
    assert S.GAME.fields["rounds"].offset == S.G_ROUNDS


def test_the_lapin_engine_declares_every_slot_of_its_array():
    from rapinsim import engine as E
    f = E.G.fields
    assert f["rize"].offset == E.RIZE and f["obs"].offset == E.OBS and E.LOG0 == E.G.end
    assert f["uf"].offset % 2 == 0 and f["held"].offset % 2 == 0    # int64 views need it
    assert "Rize's bag" in E.G.describe()
