"""qkv_param_count(d_model, d_k, d_v, with_output=False)."""
import math

import torch
from otter.test_files import test_case

from autograder.errors import StudentCodeError
from autograder.grading.checks import (
    Misconception,
    describe,
    expect_number,
    raise_if_return_missing,
    raise_if_wrong_default,
    register_misconceptions,
)
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q12"
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the assignment's diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _dims(rng):
    d_model, d_k = (int(torch.randint(lo, hi, (1,), generator=rng)) for lo, hi in ((20, 500), (2, 80)))
    return d_model, d_k, d_k + int(torch.randint(1, 40, (1,), generator=rng))  # d_v != d_k


def _width_arithmetic(d_model, d_k, d_v):
    """W_Q, W_K, W_V's count from the wrong arithmetic of the widths (blind11): multiplied together, or added."""
    return {"widths multiplied (d_model * d_k * d_v)": d_model * d_k * d_v,
            "widths multiplied (d_model * d_k * d_k * d_v)": d_model * d_k * d_k * d_v,
            "each matrix's widths added (3 d_model + 2 d_k + d_v)": 3 * d_model + 2 * d_k + d_v,
            "the widths added (d_model + 2 d_k + d_v)": d_model + 2 * d_k + d_v,
            "the widths added (d_model + d_k + d_v)": d_model + d_k + d_v}


def _raise_if_set(fn, d_model, d_k, with_output):
    """W_K's count missing is also the shapes kept in a set (blind35): a call with d_v = d_k tells them apart."""
    shapes = {(d_model, d_k)} | ({(d_k, d_model)} if with_output else set())
    n = (_calls(fn, (d_model, d_k, d_k)) or (None, None))[with_output]
    if type(n) in (int, float) and n == sum(r * c for r, c in shapes):
        raise Misconception("count_from_set_of_shapes", f"the count matches W_K left out, but with d_v = d_k = {d_k} "
                            f"it is {n}: one d_model x d_k matrix counted for W_Q, W_K and W_V together"
                            + (", and W_O beside it" if with_output else "") + " (equal shapes counted once): "
                            + describe("count_from_set_of_shapes"))


def _check(got, d_model, d_k, d_v, with_output, fn=None):
    raw = got
    got = expect_number(got, "qkv_param_count(...)")
    if got == ref.qkv_param_count(d_model, d_k, d_v, with_output):
        return
    D.raise_if_count_wrapped(got, ref.qkv_param_count(d_model, d_k, d_v, with_output), "qkv_param_count")   # blind63
    more = {"param_count_no_wk": d_model * (d_k + d_v) + (d_v * d_model if with_output else 0),
            # the bilinear form W_Q W_K^T counted as the one d_model x d_model matrix it multiplies out to (blind30)
            "param_count_qk_product": d_model * d_model + d_model * d_v + (d_v * d_model if with_output else 0)}
    # nn.MultiheadAttention(d_model, 1, kdim=d_k, vdim=d_v)'s weights (blind38): kdim / vdim are input widths, every
    # projection maps to d_model (W_Q, W_O d_model x d_model); with bias=True the in- and out-projection biases too
    mha = d_model * (d_model + d_k + d_v)
    more["param_count_mha_input_widths"] = mha + (d_model * d_model if with_output else 0)
    more["param_count_mha_input_widths/bias"] = mha + 3 * d_model + (d_model * d_model + d_model if with_output else 0)
    if not with_output:
        more["param_count_wo_always"] = ref.qkv_param_count(d_model, d_k, d_v, True)
    else:   # W_V sized d_model x d_k with W_O right gives W_O-as-d_k's count for every size (naming15): both
        # are candidates, so neither is named here; test_count_with_output's second call tells them apart
        more["param_count_dv_as_dk/wo_right"] = 3 * d_model * d_k + d_v * d_model
        # n = W_O's count where n += was meant (naming11); W_O sized d_v x d_k (or d_k x d_v), d_k x d_k, d_v x d_v
        more["param_count_output_replaces"] = d_v * d_model
        base = ref.qkv_param_count(d_model, d_k, d_v)
        for a, b in (("d_v", "d_k"), ("d_k", "d_k"), ("d_v", "d_v")):
            more[f"param_count_wo_wrong_size/{a}x{b}"] = base + {"d_k": d_k, "d_v": d_v}[a] * {"d_k": d_k, "d_v": d_v}[b]
        # W_O as "one more projection of the same size", a third of W_Q, W_K, W_V (d_v != d_k here, naming22)
        more["param_count_wo_wrong_size/a third of the W_Q, W_K, W_V count"] = base + base // 3
        more["param_count_wo_wrong_size/a third of the W_Q, W_K, W_V count (unrounded)"] = base + base / 3
        # one W_O for each of Q, K, V (blind32): 3 d_v d_model, or each sized by its own width (d_k, d_k, d_v)
        more["param_count_wo_per_projection/3 d_v x d_model"] = base + 3 * d_v * d_model
        more["param_count_wo_per_projection/d_k, d_k, d_v x d_model"] = 2 * base
    more.update({**D.param_count_mean_width(d_model, d_k, d_v, with_output), **D.param_count_padded_to_tiles(  # blind52,
                 d_model, d_k, d_v, with_output), **D.param_count_one_product(d_model, d_k, d_v, with_output)})   # 86, 88
    wo_term = {"": d_v * d_model, "_wo_too": d_v + d_model} if with_output else {"": 0}
    for form, n in _width_arithmetic(d_model, d_k, d_v).items():  # the widths combined with the wrong operation
        for tail, wo in wo_term.items():
            more[f"param_count_widths_arithmetic/{form}{tail}"] = n + wo
    for n_heads in {d_model // d_k, d_model // d_v, -(-d_model // d_k)} - {0, 1}:  # one head's count times h
        more[f"param_count_times_heads/{n_heads}"] = n_heads * ref.qkv_param_count(d_model, d_k, d_v) + wo_term[""]
        if with_output:
            more[f"param_count_times_heads/{n_heads}/all"] = n_heads * ref.qkv_param_count(d_model, d_k, d_v, True)
    # len(W) / W.shape[0] per matrix (blind39): its rows, out_features for nn.Linear (d_out x d_in), else d_model
    more["param_count_len_rows/out_features"] = 2 * d_k + d_v + (d_model if with_output else 0)
    more["param_count_len_rows/in_features"] = 3 * d_model + (d_v if with_output else 0)
    hits = {key.split("/")[0] for key, wrong in {**ref.param_count_variants(d_model, d_k, d_v, with_output),
                                                 **more}.items() if got == wrong}
    if hits == {"param_count_len_rows"} and not _len_rows_shown(fn, got == more["param_count_len_rows/out_features"]):
        hits = set()   # the rows count on these sizes only: a second call at other sizes must show it too
    if len(hits) == 1:    # two mistakes giving this same count name neither
        key = hits.pop()
        if key == "param_count_no_wk" and fn is not None:
            _raise_if_set(fn, d_model, d_k, with_output)
            D.raise_if_module_list_repeated("qkv_param_count")   # [nn.Linear(...)] * 2: one module twice (blind61)
        sizes = [k.split("/")[1] for k in more if key == "param_count_wo_wrong_size" and k.startswith(key + "/")
                 and more[k] == got]
        shape = f" (you count W_O as {sizes[0].replace('_vx', '_v x ').replace('_kx', '_k x ')})" if sizes else ""
        forms = [k.split("/")[1] for k in more if k.startswith("param_count_widths_arithmetic/") and more[k] == got]
        if key == "param_count_widths_arithmetic" and len(forms) == 1:   # which arithmetic, when only one gives it
            shape = f" ({forms[0].replace('_wo_too', ', W_O as d_v + d_model')})"
        shape = f" ({int(got)} for d_model={d_model}, d_k={d_k}, d_v={d_v}: rows summed)" if key == "param_count_len_rows" else shape
        if key == "param_count_wo_per_projection":   # which of the two, and what W_O alone holds
            extra = int(got) - ref.qkv_param_count(d_model, d_k, d_v)   # got equals a whole number here
            shape = (f" (with d_model={d_model}, d_k={d_k}, d_v={d_v} you add {extra} for W_O: "
                     f"{'3 x d_v x d_model' if extra == 3 * d_v * d_model else 'd_model (2 d_k + d_v) again'}"
                     f", where the one W_O, d_v x d_model, holds {d_v * d_model})")
        shape = D.mean_width_said(raw, d_model, d_k, d_v, with_output) if key == "param_count_mean_width" else shape
        raise Misconception(key, f"the count is wrong{shape}: it matches {describe(key)}")
    D.raise_if_count_constant(fn, d_model, d_k, d_v, got, with_output)   # one count at other sizes (blind64); bytes
    if with_output:   # where it goes wrong: W_O's own term only where the count without W_O is shown right
        alone = (_calls(fn, (d_model, d_k, d_v)) or (None,))[0] if fn is not None else None
        raise AssertionError(D.count_with_output_said(got, alone, d_model, d_k, d_v, fn))
    raise AssertionError(D.count_wrong_words(fn, d_model, d_k, d_v, False))   # "for d_v != d_k" where shown (naming65)


def _len_rows_shown(fn, out_features):
    """Whether calls at sizes no other count coincides on (97, 5, 11) give the rows count in the same layout too."""
    return fn is not None and _calls(fn, (97, 5, 11)) == ((21, 118), (291, 302))[not out_features]


_ROUNDING_PROBES = ((10, 3, 5), (10, 3, 7), (7, 3, 5), (10, 7, 3))   # d_k divides neither d_v nor 2 d_k + d_v


def _raise_if_float_rounding(fn, got, with_output):
    """A float count (d_model * d_k * (2 + d_v / d_k)): off by float rounding where d_k does not divide d_v (10, 3, 5
    gives 110.00000000000001, not 110). Only a float pays for the extra calls; one exact on every probe passes."""
    if type(got) is not float or not math.isfinite(got):
        return
    for d_model, d_k, d_v in _ROUNDING_PROBES:
        calls = _calls(fn, (d_model, d_k, d_v))
        if calls is None:
            return
        n = calls[with_output]
        want = ref.qkv_param_count(d_model, d_k, d_v, with_output)
        if type(n) is float and n != want and abs(n - want) <= 1e-9 * want:
            raise Misconception("float_for_int", f"qkv_param_count({d_model}, {d_k}, {d_v}"
                                + (", with_output=True" if with_output else "") + f") is {n!r}, a float, "
                                f"not the whole number {want}: " + describe("float_for_int"))


def _calls(fn, sizes):   # fn(*sizes) without and with W_O, or None where it raises
    try:
        return tuple(fn(*sizes, with_output=w) for w in (False, True))
    except (StudentCodeError, TypeError):
        return None


def _raise_if_inverted(fn, d_model, d_k, d_v):
    """A boolean flag's branches swapped (`if not with_output:`): with_output=False gives the count with
    W_O and with_output=True the count without it, both exactly; a second call shows the other half."""
    calls = _calls(fn, (d_model, d_k, d_v))
    if calls is None or any(type(c) not in (int, float) for c in calls):
        return
    off, on = calls
    if off == ref.qkv_param_count(d_model, d_k, d_v) + 1 and on == ref.qkv_param_count(d_model, d_k, d_v, True) \
            and _calls(fn, (9, 5, 3)) == (118, 117 + 27):   # math.prod(()) = 1 for the absent W_O, at other sizes too (blind40)
        raise Misconception("param_count_empty_term_one", f"the count without W_O is {off}, one more than {off - 1} (118 for "
                            "(9, 5, 3), one more than 117), and right with W_O: " + describe("param_count_empty_term_one"))
    if off == ref.qkv_param_count(d_model, d_k, d_v, True) and on == ref.qkv_param_count(d_model, d_k, d_v, False):
        raise Misconception("param_count_flag_inverted", f"with_output=False gives {off}, the count with W_O, and "
                            f"with_output=True gives {on}, the count without it: " + describe("param_count_flag_inverted"))


@test_case(points=1, hidden=True)
def test_count_qkv(qkv_param_count, rng, submission=None):
    d_model, d_k, d_v = _dims(rng)
    got = D.count_call(qkv_param_count, submission, d_model, d_k, d_v)   # reduce with no start value (blind72)
    D.raise_if_param_count_state_kept(qkv_param_count, got, (d_model, d_k, d_v), None)
    _raise_if_float_rounding(qkv_param_count, got, False)
    if got != ref.qkv_param_count(d_model, d_k, d_v, False):
        _raise_if_inverted(qkv_param_count, d_model, d_k, d_v)
        full = ref.qkv_param_count(d_model, d_k, d_v, True)   # the return indented into `if with_output:`
        raise_if_return_missing(got, {"with with_output=True": lambda: qkv_param_count(d_model, d_k, d_v, with_output=True)},
                                lambda o: type(o) in (int, float) and o == full, "qkv_param_count(...)")
    try:
        _check(got, d_model, d_k, d_v, False, qkv_param_count)
    except AssertionError:   # with_output left to its default: right when with_output=False is passed names it
        want = ref.qkv_param_count(d_model, d_k, d_v, False)
        try:   # `... + d_v * d_model if with_output else 0`: the conditional takes the whole sum
            got, full = (qkv_param_count(d_model, d_k, d_v, with_output=w) for w in (False, True))
        except StudentCodeError:
            got = full = None
        if type(got) is int and got == 0 and type(full) is int:
            if full == ref.qkv_param_count(d_model, d_k, d_v, True):
                raise Misconception("param_count_conditional_precedence", "the count is 0 with with_output=False "
                                    "and right with with_output=True: " + describe("param_count_conditional_precedence")
                                    ) from None
        D.raise_if_sum_after_loop(qkv_param_count, submission, d_model, d_k, d_v)
        D.raise_if_and_precedence(got, full, d_model, d_v, submission)
        raise_if_wrong_default(qkv_param_count, (d_model, d_k, d_v), {"with_output": False},
                               lambda o: type(o) in (int, float) and o == want, "qkv_param_count")
        D.raise_if_param_count_widths_swapped(qkv_param_count, d_model, d_k, d_v)
        raise
    D.raise_if_memo_key_short(qkv_param_count, d_model, d_k, d_v)   # asked again, one argument changed (blind60)


@test_case(points=1, hidden=True)
def test_count_with_output(qkv_param_count, rng, submission=None):
    d_model, d_k, d_v = _dims(rng)
    got = D.count_call(qkv_param_count, submission, d_model, d_k, d_v, with_output=True)
    D.raise_if_param_count_state_kept(qkv_param_count, got, (d_model, d_k, d_v), True)
    _raise_if_float_rounding(qkv_param_count, got, True)
    if type(got) is int and got == d_v * d_model:   # W_O alone: without W_O too is the `and` slip, not `n = ...`
        D.raise_if_sum_after_loop(qkv_param_count, submission, d_model, d_k, d_v)
        D.raise_if_and_precedence(*(_calls(qkv_param_count, (d_model, d_k, d_v)) or (None, None)), d_model, d_v,
                                  submission)
    try:
        _check(got, d_model, d_k, d_v, True, qkv_param_count)
    except AssertionError:
        if type(got) is int and got == 3 * d_model * d_k + d_v * d_model:   # W_V as d_k, or W_O as d_k: the
            try:   # count without W_O tells which (3 d_model d_k: W_V; right: the extra d_k lies in W_O)
                alone = qkv_param_count(d_model, d_k, d_v, with_output=False)
            except StudentCodeError:
                alone = None
            for key, n in (("param_count_dv_as_dk", 3 * d_model * d_k), ("param_count_wo_as_dk",
                                                                          ref.qkv_param_count(d_model, d_k, d_v))):
                if type(alone) is int and alone == n:
                    raise Misconception(key, f"with_output=True gives {got} and with_output=False {alone}: "
                                        + describe(key)) from None
        base = ref.qkv_param_count(d_model, d_k, d_v)   # or W_V out, W_O in: with_output=False right tells (naming9)
        if type(got) in (int, float) and got == base:
            _raise_if_inverted(qkv_param_count, d_model, d_k, d_v)
            try:
                alone = qkv_param_count(d_model, d_k, d_v, with_output=False)
            except StudentCodeError:
                alone = None
            if type(alone) in (int, float) and alone == base:
                raise Misconception("param_count_wo_ignored", f"with_output=True gives {got}, the count without "
                                    f"W_O, and with_output=False gives it too (right there): "
                                    + describe("param_count_wo_ignored")) from None
        raise
    D.check_count_wo_when_square(qkv_param_count, d_model, d_k, d_v, got)   # d_v = d_model: W_O counted there too
