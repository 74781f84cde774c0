from benchmarks.profile import _shares, demangle


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
