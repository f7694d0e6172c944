"""Generated text with tolerant numbers (dwtcp_fluid.numtext): the text outside the marked numbers compares exactly,
each marked number within its tolerance plus half a unit of the committed number's last digit."""

from __future__ import annotations

import pytest

from dwtcp_fluid.numtext import compare, marked_numbers, num, plain


def _doc(value: float, **tol) -> str:
    return f"Step 14: period {num(value, **tol)} ms, |μ| = {num(0.65, 2)}; RTT 100 µs.\n"


def test_plain_is_the_rendered_number_and_the_mark_holds_value_and_tolerance():
    text = _doc(0.936249)
    assert plain(text) == "Step 14: period 0.9362 ms, |μ| = 0.65; RTT 100 µs.\n"
    period, mu = marked_numbers(text)
    assert (period.text, period.value, period.tol) == ("0.9362", 0.936249, pytest.approx(1e-4))
    assert mu.tol == pytest.approx(0.01)  # default: one unit in the last digit shown


def test_a_one_digit_change_within_the_tolerance_passes():
    # the report of issue 25: this CPU renders 0.9362 where the committed file says 0.9363
    assert compare(plain(_doc(0.936349)), _doc(0.936249)) == []
    assert compare("Step 14: period 0.9363 ms, |μ| = 0.65; RTT 100 µs.\n", _doc(0.93624)) == []


def test_a_change_beyond_the_tolerance_fails_and_names_the_line_and_numbers():
    problems = compare(plain(_doc(0.9366)), _doc(0.93624))
    assert len(problems) == 1 and "line 1: 0.9366 differs from the regenerated 0.93624" in problems[0]
    assert "tolerance 0.0001" in problems[0]


def test_a_stated_tolerance_widens_the_check_and_is_never_below_the_last_digit():
    assert compare(plain(_doc(0.9400)), _doc(0.9362, rtol=5e-3)) == []  # 0.4 % off, rtol 0.5 %
    assert compare(plain(_doc(0.9500)), _doc(0.9362, rtol=5e-3)) != []  # 1.5 % off
    assert marked_numbers(num(0.93624, 4, rtol=1e-9))[0].tol == pytest.approx(1e-4)


def test_integer_counts_and_absolute_tolerances():
    doc = f"{num(160, spec='d', atol=0)} of 250 runs, mean {num(139.74, spec='.1f', atol=2)} packets\n"
    assert plain(doc) == "160 of 250 runs, mean 139.7 packets\n"
    assert compare("161 of 250 runs, mean 141.5 packets\n", doc) == []  # counts: one unit by default
    assert compare("163 of 250 runs, mean 139.7 packets\n", doc) != []
    assert compare("160 of 250 runs, mean 142.0 packets\n", doc) != []


def test_text_outside_the_numbers_compares_exactly():
    regenerated = _doc(0.93624)
    assert compare(plain(regenerated).replace("period", "periods"), regenerated) != []
    assert (
        compare(plain(regenerated).replace("100 µs", "101 µs"), regenerated) != []
    )  # an unmarked number is text
    assert compare(plain(regenerated).replace("0.9362", "abc"), regenerated) != []
    assert compare(plain(regenerated) + "\n", regenerated) != []


def test_exponents_and_signs_compare_as_numbers():
    doc = f"abscissa {num(-1.2345e-7, 3, atol=1e-6)} and {num(6.313e7, 4)}\n"
    assert plain(doc) == "abscissa -1.23e-07 and 6.313e+07\n"
    assert compare("abscissa 4.4e-07 and 6.314e+07\n", doc) == []
    assert compare("abscissa 4.4e-06 and 6.313e+07\n", doc) != []
