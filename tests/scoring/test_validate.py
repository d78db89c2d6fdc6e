"""Submission validation: every problem, with code, target and position."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from leaderboard.scoring import validate_submission
from leaderboard.scoring.swords.parse import gunzip_capped


@pytest.fixture(scope="module")
def ids(tiny):
    return tiny.ids


def codes(report) -> list[str]:
    return [p.code for p in report.errors]


def test_valid_submission_is_parsed(tiny, ids):
    raw = json.dumps({"substitutes_lemmatized": True, "substitutes": {
        ids["car"]: [["auto", 1], ["truck", 0.5]], ids["run"]: ["dash", "jog"]}})
    report = validate_submission(raw.encode(), tiny)
    assert report.ok and report.errors == []
    assert report.submission.entries[ids["run"]] == [("dash", 0.0), ("jog", -1.0)]
    assert report.submission.substitutes_lemmatized is True
    assert report.counts == {"targets_in_split": 5, "answered": 2, "missing": 3, "unknown": 0,
                             "empty_lists": 0, "abstentions": 3, "substitutes_total": 4}
    assert [w.code for w in report.warnings] == ["missing_targets"]
    assert "3 of 5" in report.warnings[0].message


def test_gzipped_submission(tiny, ids):
    raw = gzip.compress(json.dumps({"substitutes": {ids["car"]: ["auto"]}}).encode())
    assert validate_submission(raw, tiny).ok


@pytest.mark.parametrize("raw, code", [
    (b"{not json", "not_json"),
    (b"\xff\xfe\x00", "not_utf8"),
    (b"[1, 2]", "not_object"),
    (b"{}", "missing_substitutes"),
    (b'{"substitutes": []}', "wrong_type"),
    (b"\x1f\x8bnot really gzip", "bad_gzip"),
])
def test_malformed_files(tiny, raw, code):
    report = validate_submission(raw, tiny)
    assert not report.ok and codes(report) == [code]
    assert report.submission is None


def test_every_problem_is_reported_with_target_and_position(tiny, ids):
    car, run, big = ids["car"], ids["run"], ids["big"]
    raw = (
        '{"substitutes_lemmatized": true, "substitutes": {'
        f'"{car}": [["auto", NaN], ["x", Infinity], ["y", true], ["z", "1"], [3, 1], ""], '
        f'"{run}": "dash", '
        f'"{big}": [["large"], ["huge", 1, 2], {{"a": 1}}, "  "], '
        '"t:0000000000000000000000000000000000000000": ["x"], '
        '"t:1111111111111111111111111111111111111111": ["y"]}}'
    )
    report = validate_submission(raw.encode(), tiny, allow_empty=False)
    found = [(p.code, p.target_id, p.position) for p in report.errors]
    assert ("non_finite_score", car, 0) in found
    assert ("non_finite_score", car, 1) in found
    assert ("non_numeric_score", car, 2) in found
    assert ("non_numeric_score", car, 3) in found
    assert ("non_string_substitute", car, 4) in found
    assert ("empty_substitute", car, 5) in found
    assert ("wrong_type", run, None) in found
    assert ("wrong_type", big, 0) in found
    assert ("wrong_type", big, 1) in found
    assert ("wrong_type", big, 2) in found
    assert ("empty_substitute", big, 3) in found
    unknown = [p.target_id for p in report.errors if p.code == "unknown_target"]
    assert sorted(unknown) == ["t:" + "0" * 40, "t:" + "1" * 40]
    assert report.counts["unknown"] == 2
    assert len(report.errors) == 13
    assert all(p.message for p in report.errors)


def test_duplicate_target_ids_are_detected(tiny, ids):
    raw = f'{{"substitutes": {{"{ids["car"]}": ["a"], "{ids["car"]}": ["b"]}}}}'
    report = validate_submission(raw.encode(), tiny)
    assert codes(report) == ["duplicate_target"]
    assert report.errors[0].target_id == ids["car"]


def test_too_many_substitutes(tiny, ids):
    raw = json.dumps({"substitutes": {ids["car"]: [f"w{i}" for i in range(11)]}})
    report = validate_submission(raw.encode(), tiny, max_substitutes=10)
    assert codes(report) == ["too_many_substitutes"]
    assert validate_submission(raw.encode(), tiny, max_substitutes=11).ok


def test_file_too_large(tiny, ids):
    raw = json.dumps({"substitutes": {ids["car"]: ["x" * 500]}}).encode()
    assert codes(validate_submission(raw, tiny, max_bytes=100)) == ["file_too_large"]


def test_gzip_bomb_stops_at_the_cap(tiny):
    bomb = gzip.compress(b"[" + b" " * 50_000_000 + b"]")
    assert len(bomb) < 100_000
    report = validate_submission(bomb, tiny, max_bytes=1_000_000)
    assert codes(report) == ["file_too_large"]
    assert "decompresses" in report.errors[0].message


def test_multi_member_gzip_bomb_is_refused_by_member_count(tiny):
    bomb = gzip.compress(b'{"substitutes": {}}') + gzip.compress(b"") * 400_000
    report = validate_submission(bomb, tiny)
    assert codes(report) == ["too_many_gzip_members"]
    assert "more than 10,000 gzip members" in report.errors[0].message


def test_many_member_gzip_within_the_cap_reads_every_member(tiny, ids):
    text = json.dumps({"substitutes": {ids["car"]: [["auto", 1.0]], ids["apple"]: ["pear"]}})
    step = 7  # members of 7 bytes of text: about 14 members, several inside one read chunk
    raw = b"".join(gzip.compress(text[i:i + step].encode()) for i in range(0, len(text), step))
    assert gunzip_capped(raw, 10_000) == text.encode()
    # trailing bytes that are not another member are ignored, as before
    assert gunzip_capped(raw + b"\n\x00junk", 10_000) == text.encode()
    assert validate_submission(raw, tiny).ok
    with pytest.raises(zlib.error):  # one member over a lowered cap
        gunzip_capped(raw, 10_000, max_members=3)


def test_huge_integer_scores_are_not_finite(tiny, ids):
    huge = "1" + "0" * 400
    raw = '{"substitutes": {"' + ids["car"] + '": [["a", ' + huge + "]]}}"
    assert codes(validate_submission(raw.encode(), tiny)) == ["non_finite_score"]


def test_empty_substitutes_are_kept_and_named_in_warnings_by_default(tiny, ids):
    raw = json.dumps({"substitutes": {ids["car"]: ["auto", "", " "]}}).encode()
    report = validate_submission(raw, tiny)
    assert report.ok
    assert report.submission.entries[ids["car"]] == [("auto", 0.0), ("", -1.0), (" ", -2.0)]
    named = [(w.code, w.target_id, w.position) for w in report.warnings]
    assert ("empty_substitute", ids["car"], 1) in named
    assert ("empty_substitute", ids["car"], 2) in named
    assert report.counts["empty_substitutes"] == 2
    strict = validate_submission(raw, tiny, allow_empty=False)
    assert [p.code for p in strict.errors] == ["empty_substitute", "empty_substitute"]


def test_report_never_mentions_gold(tiny, ids):
    raw = json.dumps({"substitutes": {ids["car"]: ["automobile", ["vehicle", "x"]]}}).encode()
    text = json.dumps(validate_submission(raw, tiny).to_dict())
    for gold_word in ("truck", "train", "sprint", "large"):
        assert gold_word not in text


def test_structure_bomb_is_refused_before_parsing(tiny):
    # A few KB gzipped, many MB of "{}," inflated: json.loads would build gigabytes from it.
    bomb = gzip.compress(b'{"substitutes_lemmatized":true,"substitutes":{},"x":['
                         + b"{}," * 5_000_000 + b"{}]}", 9)
    report = validate_submission(bomb, tiny, max_bytes=200 * 1024 * 1024)
    assert codes(report) == ["too_many_values"]
    # 5,000,002 commas + 1 "[" + 5,000,003 "{" + 1 for the top-level value.
    assert "10,000,007 JSON values" in report.errors[0].message
    assert "the limit is 1,500,000" in report.errors[0].message


def test_structure_budget_is_a_parameter(tiny, ids):
    raw = json.dumps({"substitutes": {ids["car"]: ["a", "b", "c"]}}).encode()
    # 2 commas + 1 "[" + 2 "{" + 1 = 6
    assert validate_submission(raw, tiny, max_structure=6).ok
    assert codes(validate_submission(raw, tiny, max_structure=5)) == ["too_many_values"]


def test_a_2_mb_substitute_is_refused_before_parsing_plain_and_gzipped(tiny, ids):
    # One huge string builds as much as its text on top of the buffer holding it.
    head = b'{"substitutes": {"' + ids["car"].encode() + b'": ["'
    raw = head + b"a" * 2_000_000 + b'"]}}'
    for upload in (raw, gzip.compress(raw)):
        report = validate_submission(upload, tiny)
        assert codes(report) == ["value_too_long"]
        assert report.errors[0].message == (
            f"the file has 2,000,000 bytes in a row without a double quote, from byte "
            f"{len(head):,}: a string, number or blank space that long; the limit is 65,536 "
            "bytes (target ids and substitutes are short)")


def test_escaped_quotes_do_not_split_a_long_string(tiny, ids):
    head = b'{"substitutes": {"' + ids["car"].encode() + b'": ["'
    raw = head + (b"a" * 1000 + b'\\"') * 2000 + b'"]}}'
    report = validate_submission(raw, tiny)
    assert codes(report) == ["value_too_long"]
    assert "2,004,000 bytes in a row" in report.errors[0].message


def test_2_mb_of_blank_space_between_values_is_refused(tiny, ids):
    head = b'{"substitutes": {"' + ids["car"].encode() + b'": ["auto'
    raw = head + b'"],' + b" " * 2_000_000 + b'"' + ids["run"].encode() + b'": ["dash"]}}'
    report = validate_submission(raw, tiny)
    assert codes(report) == ["value_too_long"]
    assert report.errors[0].message.startswith(
        "the file has 2,000,002 bytes in a row without a double quote, from byte "
        f"{len(head) + 1:,}:")


def test_value_length_limit_is_a_parameter_and_normal_files_pass(tiny, ids):
    # Target ids have 42 bytes; the second substitute has 44 (21 + the escaped quote + 21),
    # the longest stretch, since an escaped quote does not end it.
    raw = ('{"substitutes_lemmatized": true, "substitutes": {"' + ids["car"]
           + '": [["automobile", 0.5], "' + "x" * 21 + '\\"' + "y" * 21 + '"]}}').encode()
    assert validate_submission(raw, tiny).ok
    assert validate_submission(raw, tiny, max_token=44).ok
    report = validate_submission(raw, tiny, max_token=43)
    assert codes(report) == ["value_too_long"]
    assert "44 bytes in a row" in report.errors[0].message
    assert "the limit is 43 bytes" in report.errors[0].message


def test_substitutes_text_over_the_limit_is_refused_before_it_is_decoded(tiny, ids):
    subs = '{"' + ids["car"] + '": ["auto", "car"]}'  # 63 bytes: the 42-byte id + 21
    raw = ('{"substitutes": ' + subs + ', "meta": "' + "m" * 500 + '"}').encode()
    assert len(subs) == 63
    assert validate_submission(raw, tiny, max_substitutes_bytes=63).ok
    report = validate_submission(raw, tiny, max_substitutes_bytes=62)
    assert codes(report) == ["substitutes_too_large"]
    assert report.errors[0].message == (
        'the "substitutes" object has 63 bytes; the limit is 62')


def test_more_than_1_mib_outside_the_substitutes_is_refused(tiny, ids):
    # Ignored keys are not built, but would keep a buffer of up to the cap alive.
    subs = '{"' + ids["car"] + '": ["auto"]}'
    meta = "[" + ",".join(['"' + "m" * 60_000 + '"'] * 18) + "]"  # 18 x 60,002 + 17 + 2
    raw = ('{"substitutes": ' + subs + ', "meta": ' + meta + "}").encode()
    report = validate_submission(raw, tiny)
    assert codes(report) == ["too_large_outside_substitutes"]
    # meta's 1,080,055 + '{"substitutes": ' (16) + ', "meta": ' (10) + "}" (1)
    assert report.errors[0].message == (
        'the file has 1,080,082 bytes outside the "substitutes" object (other keys are '
        "ignored); the limit is 1,048,576")


def test_a_large_file_that_does_not_fit_is_refused_at_its_first_problem(tiny, ids):
    # Two problems; the full lenient re-read (both listed) only runs on files up to the limit.
    raw = ('{"substitutes": {"' + ids["car"] + '": [1], "' + ids["run"] + '": "x"}, "meta": "'
           + "m" * 500 + '"}').encode()
    full = validate_submission(raw, tiny)
    assert sorted(codes(full)) == ["wrong_type", "wrong_type"]
    report = validate_submission(raw, tiny, max_substitutes_bytes=200)
    assert codes(report) == ["wrong_format"]
    assert report.errors[0].message.startswith(
        "the file does not fit the submission format: Expected `")
    assert report.errors[0].message.endswith(
        "(a file over 200 bytes is checked only up to its first problem)")


def test_unknown_top_level_values_are_skipped_with_a_warning(tiny, ids):
    raw = ('{"meta": {"a": [1, {"b": 2}], "c": "x:y"}, "substitutes_lemmatized": false, '
           '"substitutes": {"' + ids["car"] + '": [["auto", 2], "car"]}}').encode()
    report = validate_submission(raw, tiny)
    assert report.ok
    assert report.submission.entries[ids["car"]] == [("auto", 2.0), ("car", -1.0)]
    assert report.submission.substitutes_lemmatized is False
    assert [(w.code, w.message) for w in report.warnings][0] == (
        "unknown_key", "top-level key 'meta' is ignored")


def test_duplicates_are_found_whatever_the_spacing_and_strings(tiny, ids):
    car, run = ids["car"], ids["run"]
    # Colons and escaped quotes inside strings must not be taken for keys.
    clean = ('{"substitutes": {"' + car + '" : [":)", "a\\":b", ["x:", 1]], "' + run
             + '":["y"]}}').encode()
    report = validate_submission(clean, tiny)
    assert report.ok and report.submission.entries[car][1] == ('a":b', -1.0)
    dup = ('{"substitutes": {"' + car + '" : [":)"],\n "' + car + '"\t: ["b"]}}').encode()
    assert codes(validate_submission(dup, tiny)) == ["duplicate_target"]
    escaped = car.replace(":", "\\u003a")
    dup = ('{"substitutes": {"' + car + '": ["a"], "' + escaped + '": ["b"]}}').encode()
    assert codes(validate_submission(dup, tiny)) == ["duplicate_target"]
    top = ('{"substitutes": {"' + car + '": ["a"]}, "substitutes" :{}}').encode()
    assert codes(validate_submission(top, tiny)) == ["duplicate_key"]
