import pytest

from benchmarks import profile
from benchmarks.profile import _shares, callgrind_costs, demangle, per_function


def test_demangle_numba_symbols():
    assert demangle("_ZN8bloomsim6engine9play_gameB2v3B38c8tJTIeFIjxE5ArrayIdLi1E") == \
        "bloomsim.engine.play_game"
    assert demangle("__gufunc__._ZN13_3cdynamic_3e36__numba_parfor_gufunc_0x7fd60489bd90B2v9") \
        == "<dynamic>.__numba_parfor_gufunc"
    assert demangle("NRT_decref") == "NRT_decref"


def test_shares_sum_copies_of_a_function_and_group_the_rest():
    report = """# comment
    12.5%  [.] bloomsim.engine.druid
     2.5%  [.] bloomsim.engine.druid
     3.0%  [k] clear_page_erms
     1.0%  [k] exc_page_fault
     0.5%  [.] 0x000000000001f7da
"""
    assert _shares(report) == {"bloomsim.engine.druid": 15.0, "[kernel]": 4.0,
                               "[unnamed machine code]": 0.5}


def test_callgrind_costs_follow_relative_addresses_and_leave_call_costs_to_the_callee():
    text = """# callgrind format
positions: instr
events: Ir
fn=(1) play_turn
0x1000 5
+4 5
* 2
-4 1
calls=3 0x2000
+8 900
+3 7
fn=(2) step
0x2000 300
"""
    assert callgrind_costs(text) == {0x1000: 6, 0x1004: 7, 0x100B: 7, 0x2000: 300}


def test_per_function_sums_the_addresses_inside_each_engine_function():
    functions = [(0x1000, 0x100, "rapinsim.engine.play_turn"),
                 (0x1100, 0x100, "NumbaEnv.rapinsim.engine.play_turn"),
                 (0x2000, 0x10, "simcore.results.rank_and_share")]
    costs = {0x1000: 6, 0x10FF: 4, 0x1100: 50, 0x2008: 3, 0x2010: 9, 0x500: 1}
    assert per_function(costs, functions, ("rapinsim.", "simcore.")) == {
        "rapinsim.engine.play_turn": 10, "simcore.results.rank_and_share": 3}


def test_compile_times_give_each_kernel_its_own_compile_and_name_the_passes():
    from numba import njit

    @njit
    def profiled_inner(x):
        return x + 1

    @njit
    def profiled_outer(x):
        return profiled_inner(x) * 2

    res = profile.compile_times(lambda: profiled_outer(3))
    kernels = {name.rsplit(".", 1)[-1]: s for name, s in res["kernels"].items()}
    assert set(kernels) == {"profiled_outer", "profiled_inner"}
    assert all(s > 0 for s in kernels.values())
    assert {"nopython_type_inference", "native_lowering"} <= set(res["passes"])
    # each kernel's LLVM time is part of its own compile, and each pass counted once
    assert all(0 <= res["llvm"][k] <= res["kernels"][k] for k in res["kernels"])
    assert sum(res["passes"].values()) <= sum(res["kernels"].values())


def test_compile_and_instructions_are_two_profiles(capsys):
    with pytest.raises(SystemExit) as e:
        profile.main(["bloomsim", "--compile", "--instructions"])
    assert e.value.code == 2
    assert "choose one" in capsys.readouterr().err
