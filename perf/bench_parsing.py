"""Parsing cost: peak RSS added and wall time of validating one upload, per kind of input.

Each case runs in a fresh child process (``--case NAME``) that loads the split's target ids,
builds the input, records ``ru_maxrss``, validates, and reports the growth of ``ru_maxrss``
and the validation time. Inputs: the structure bomb (gzipped, 5 M ``{}``), its
15 MB and 200 MB-decompressed versions, deep nesting, one huge string (plain and split by
escaped quotes), 190 MB of blank space, 190 MB of strings each under the token limit (valid,
and with one bad item so that the lenient reader runs), many unknown targets, the largest
valid file the limits allow (alone and with 180 MB in an ignored top-level key), a real
full test-split submission (CoInCo), and the multi-member gzip bomb (empty members after
one real one, at 1, 4 and 8 MiB) beside a legitimate 3,000-member file. The split and the
CoInCo file come from ../shared; without them the script skips. Peak RSS is the kernel's
high-water mark (VmHWM, what ``ru_maxrss`` reports), reset just before validating.

    .venv/bin/python perf/bench_parsing.py [--only WORD ...]
    .venv/bin/python perf/bench_parsing.py --members   # decompression alone, no cap
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"
SPLIT = SHARED / "swords" / "swords-v1.1_test.json.gz"
COINCO = SHARED / "reference-systems" / "coinco_test.result.json.gz"
CAP = 200 * 1024 * 1024
# BENCH_MAX_TOKEN=209715200 BENCH_MAX_SUBSTITUTES=209715200 measure the reader without the
# token-length and substitutes-size limits ("before").
MAX_TOKEN = int(os.environ.get("BENCH_MAX_TOKEN", 64 * 1024))
MAX_SUBSTITUTES = int(os.environ.get("BENCH_MAX_SUBSTITUTES", 32 * 1024 * 1024))


def _bomb(n: int) -> bytes:
    return gzip.compress(b'{"substitutes_lemmatized":true,"substitutes":{},"x":['
                         + b"{}," * n + b"{}]}", 9)


def _member_bomb(mib: int) -> bytes:
    """The multi-member gzip bomb: one real member, then empty members up to ``mib`` MiB."""
    head, empty = gzip.compress(b'{"substitutes": {}}'), gzip.compress(b"")
    return head + empty * ((mib * 1024 * 1024 - len(head)) // len(empty))


def _split_members(data: bytes, members: int) -> bytes:
    step = -(-len(data) // members)
    return b"".join(gzip.compress(data[i:i + step], 1) for i in range(0, len(data), step))


def _big_valid(ids: list[str], pad: str = "") -> bytes:
    per = 600  # 762 x 600 = 457,200 pairs, near the 500,000-substitute limit
    doc = {"substitutes_lemmatized": True,
           "substitutes": {t: [[f"{pad}w{i}", 1.0 / (i + 1)] for i in range(per)] for t in ids}}
    return json.dumps(doc).encode()


CASES = {
    "bomb 5M {} (15 MB inflated)": lambda ids: _bomb(5_000_000),
    "bomb 200 MB inflated": lambda ids: _bomb(CAP // 3 - 20),
    "deep nesting 100k [": lambda ids: gzip.compress(
        b'{"substitutes":{},"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "huge string 190 MB": lambda ids: gzip.compress(
        b'{"substitutes":{"' + ids[0].encode() + b'":["' + b"a" * (190 * 1024 * 1024)
        + b'"]}}'),
    "190 MB string, escaped quote every 32 KiB": lambda ids: gzip.compress(
        b'{"substitutes":{"' + ids[0].encode() + b'":["'
        + (b"a" * 32766 + b'\\"') * (190 * 32) + b'"]}}'),
    "190 MB blank space": lambda ids: gzip.compress(
        b'{"substitutes":{' + b" " * (190 * 1024 * 1024) + b"}}"),
    "190 MB in 64 KiB strings": lambda ids: gzip.compress(
        b'{"substitutes":{"' + ids[0].encode() + b'":['
        + b",".join([b'"' + b"a" * 65000 + b'"'] * 3000) + b"]}}"),
    "190 MB in 64 KiB strings, one bad item": lambda ids: gzip.compress(
        b'{"substitutes":{"' + ids[0].encode() + b'":['
        + b",".join([b'"' + b"a" * 65000 + b'"'] * 3000) + b",1]}}"),
    "largest valid at 32 MiB (38-byte pad per substitute)": lambda ids: _big_valid(ids, "x" * 38),
    "same, one bad item (lenient re-read)": lambda ids: gzip.compress(
        _big_valid(ids, "x" * 38)[:-4] + b"],1]}}", 6),
    "largest valid + 180 MB ignored key": lambda ids: gzip.compress(
        _big_valid(ids)[:-1] + b',"x":[' + b",".join([b'"' + b"a" * 65000 + b'"'] * 2900)
        + b"]}"),
    "2M unknown targets": lambda ids: gzip.compress(
        b'{"substitutes":{' + b",".join(b'"u%d":[]' % i for i in range(2_000_000)) + b"}}"),
    "largest valid (762 x 600 pairs)": _big_valid,
    "CoInCo test submission": lambda ids: COINCO.read_bytes(),
    "multi-member gzip 1 MiB": lambda ids: _member_bomb(1),
    "multi-member gzip 4 MiB": lambda ids: _member_bomb(4),
    "multi-member gzip 8 MiB": lambda ids: _member_bomb(8),
    # Legitimate many-member files (bgzip/pigz write one member per block): 3,000 members.
    "CoInCo test submission in 3,000 gzip members": lambda ids: _split_members(
        gzip.decompress(COINCO.read_bytes()), 3000),
}


def _reset_peak() -> None:
    """Reset the kernel's peak-RSS mark (Linux): what ru_maxrss would report then starts here."""
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")


def _rss_kb(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_case(name: str, path: str, ids_path: str) -> dict:
    """In this process: read the input, validate it, report RSS growth and time.

    The address space is capped at 8 GiB so that a parser that would take more fails here
    with MemoryError instead of pushing the machine into its out-of-memory killer.
    """
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    from leaderboard.scoring.swords.validate import validate_submission

    # Only the target ids: loading the whole split here would raise the RSS high-water mark
    # above what validation adds, hiding it.
    prepared = SimpleNamespace(target_index=dict.fromkeys(json.loads(Path(ids_path).read_text())))
    raw = Path(path).read_bytes()
    _reset_peak()
    before = _rss_kb("VmRSS:")
    start = time.perf_counter()
    try:
        report = validate_submission(raw, prepared, max_bytes=CAP, max_token=MAX_TOKEN,
                                     max_substitutes_bytes=MAX_SUBSTITUTES)
        first = report.errors[0].code if report.errors else ""
        ok = report.ok
    except MemoryError:
        ok, first = False, "MemoryError at the 8 GiB address-space cap"
    seconds = time.perf_counter() - start
    after = max(_rss_kb("VmHWM:"), 0)
    return {"case": name, "upload_bytes": len(raw), "seconds": round(seconds, 2),
            "peak_rss_added_mb": round((after - before) / 1024, 1),
            "ok": ok, "first_error": first}


def member_scaling() -> None:
    """gunzip_capped alone on the multi-member bomb with the member cap lifted: time should
    grow linearly with the upload, not quadratically (each member's cost must not grow with
    the members before it)."""
    from leaderboard.scoring.swords.parse import gunzip_capped

    print("| multi-member gzip, member cap lifted | members | decompress time |")
    print("|---|---:|---:|")
    for mib in (1, 4, 8):
        raw = _member_bomb(mib)
        start = time.process_time()
        gunzip_capped(raw, CAP, max_members=10**9)
        members = (len(raw) - len(gzip.compress(b'{"substitutes": {}}'))) // 20 + 1
        print(f"| {mib} MiB | {members:,} | {time.process_time() - start:.2f} s CPU |",
              flush=True)


def main() -> int:
    if sys.argv[1:] == ["--members"]:
        member_scaling()
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "--case":
        print(json.dumps(run_case(*sys.argv[2:])))
        return 0
    if not SPLIT.exists() or not COINCO.exists():
        print(f"skipped: {SPLIT} or {COINCO} is absent")
        return 0
    print("| input | upload | time | peak RSS added | outcome |")
    print("|---|---:|---:|---:|---|")
    from leaderboard.scoring.swords.gold import load_split

    ids = list(load_split(SPLIT)["targets"])
    with tempfile.NamedTemporaryFile("w", suffix=".json") as id_file:
        json.dump(ids, id_file)
        id_file.flush()
        _run_cases(ids, id_file.name)
    return 0


def _run_cases(ids: list[str], id_path: str) -> None:
    only = sys.argv[2:] if sys.argv[1:2] == ["--only"] else []
    for name, make in CASES.items():
        if only and not any(word in name for word in only):
            continue
        # Built here and read back by the child, so its baseline RSS holds only the bytes.
        with tempfile.NamedTemporaryFile(suffix=".json.gz") as handle:
            handle.write(make(ids))
            handle.flush()
            out = subprocess.run([sys.executable, __file__, "--case", name, handle.name,
                                  id_path], capture_output=True, text=True, cwd=ROOT)
        if out.returncode != 0:
            print(f"| {name} | | | | child failed ({out.returncode}): "
                  f"{out.stderr.strip().splitlines()[-1:]} |")
            continue
        row = json.loads(out.stdout)
        outcome = "valid" if row["ok"] else f"invalid: {row['first_error']}"
        print(f"| {name} | {row['upload_bytes']:,} B | {row['seconds']} s | "
              f"{row['peak_rss_added_mb']} MB | {outcome} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
