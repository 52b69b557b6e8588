"""Benchmark: load, validate and render per record, and the plugin's cost over plain MkDocs.

Prints microseconds per record at 1,000 and 10,000 synthetic records (4 KB each), then the
ratio of `failpedia build` on 1,000 records to a plain `mkdocs build` of the same pages
written to disk as Markdown (same theme, same navigation), both measured in this run: with an
empty cache, rebuilt with nothing changed, and rebuilt after one record changed. Each figure
is the fastest of N runs (`python bench/build.py [N]`, default 3), and each build is also
divided by the plain build of its own round, in wall time and in CPU time (which leaves out
the time a shared host gives to its other guests). The per-record total is also given against a
bare `yaml.load` with libyaml of the same records, timed in the same run, which keeps the
figure comparable when the machine's neighbours slow everything down. Not a test: nothing
asserts on time.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.patterns.dialect import compile_pattern  # noqa: E402
from generator.records.load import load_text  # noqa: E402
from generator.records.model import build_catalog  # noqa: E402
from generator.records.pipeline import paused_gc  # noqa: E402
from generator.records.validate import check_catalog, check_document  # noqa: E402
from generator.site.render import render_site  # noqa: E402

CATEGORIES = ("communication", "memory", "hardware", "numerical", "launcher")
# The foundation issue measured PyYAML's CSafeLoader at 0.36 ms per 4 KB record on its machine.
ISSUE_REFERENCE_US = 360.0


def record(n: int) -> str:
    """Return the YAML of synthetic record number ``n`` (about 4 KB)."""
    rid = f"synthetic-failure-{n:05d}"
    sentence = "The collective stalls because one rank never reaches the call, so the others wait. "
    return f"""id: {rid}
title: Synthetic failure {n}
category: {CATEGORIES[n % len(CATEGORIES)]}
severity: fatal
status: draft
summary: Synthetic record {n} used to measure the generator; {sentence.strip()}
symptoms:
  - signal: "`Synthetic error {n} happened` in the log"
    meaning: {sentence.strip()}
  - signal: Every other rank times out.
    meaning: They wait for the rank that failed.
observations:
  - {sentence.strip()}
  - {sentence.strip()}
mechanism: |
  {sentence * 6}

  {sentence * 6}
causes:
  - title: A rank crashed
    detail: {sentence.strip()}
  - title: The network dropped
    detail: {sentence.strip()}
confirm:
  - Look at the first rank that failed.
  - Check the fabric counters.
fix:
  steps:
    - text: Restart from the last checkpoint.
      command: torchrun --nnodes 2 --nproc-per-node 8 train.py --resume
    - text: Replace the failing node.
  verify: The job passes the failing step.
prevention:
  - Watch the fabric.
affected:
  - PyTorch DDP
scale:
  single: Rare on one GPU.
  large: Common at scale.
env:
  - name: NCCL_DEBUG
    effect: Prints the failing call.
tags: [synthetic, tag-{n % 50}]
references:
  - title: NCCL docs
    url: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/
    kind: docs
  - title: An issue
    url: https://github.com/NVIDIA/nccl/issues/{n}
    kind: issue
faq:
  - q: Is it a bug?
    a: {sentence.strip()}
signatures:
  - id: {rid}-message
    pattern: "Synthetic error {n} happened at step [0-9]+"
    description: The synthetic error line.
    strength: specific
    examples:
      match:
        - "[rank3]: Synthetic error {n} happened at step 12"
        - "Synthetic error {n} happened at step 1"
      no_match:
        - "Synthetic error {n} nearly happened"
        - "NCCL INFO Bootstrap : Using eth0"
"""


def stage_times(texts: list[tuple[str, bytes]]) -> tuple[float, float, float]:
    """Return the seconds taken to load, validate and render ``texts`` once, caches cold."""
    re.purge()
    compile_pattern.cache_clear()
    with paused_gc():  # as pipeline.load_catalog and the plugin run these stages
        t0 = time.perf_counter()
        docs = [load_text(path, raw) for path, raw in texts]
        t1 = time.perf_counter()
        issues = [issue for doc in docs for issue in check_document(doc)]
        catalog = build_catalog(docs)
        issues += check_catalog(catalog)
        t2 = time.perf_counter()
        pages = render_site(catalog)
        t3 = time.perf_counter()
    assert not issues, issues[:3]
    assert len(pages) > len(texts)
    return t1 - t0, t2 - t1, t3 - t2


def per_record_us(count: int, repeats: int) -> dict[str, float]:
    """Return microseconds per record for load, validate and render of ``count`` records.

    Each stage's time is the fastest of ``repeats`` runs (this machine's neighbours add
    noise, never speed); compiled-pattern caches are emptied before each run.
    """
    texts = [
        (f"entries/{CATEGORIES[n % len(CATEGORIES)]}/synthetic-failure-{n:05d}.yaml", record(n).encode())
        for n in range(count)
    ]
    runs = [(*stage_times(texts), reference_load(texts)) for _ in range(repeats)]  # interleaved
    scale = 1e6 / count
    names = ("load", "validate", "render", "reference")
    return {name: min(run[i] for run in runs) * scale for i, name in enumerate(names)}


def reference_load(texts: list[tuple[str, bytes]]) -> float:
    """Return the seconds PyYAML's libyaml loader alone takes for ``texts`` (the reference)."""
    with paused_gc():
        start = time.perf_counter()
        for _, raw in texts:
            yaml.load(raw, Loader=yaml.CSafeLoader)
        return time.perf_counter() - start


def write_project(base: Path, count: int) -> None:
    """Write a project with ``count`` records under ``base``."""
    shutil.copy(ROOT / "mkdocs.yml", base / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", base / "overrides")
    for n in range(count):
        folder = base / "entries" / CATEGORIES[n % len(CATEGORIES)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"synthetic-failure-{n:05d}.yaml").write_text(record(n), encoding="utf-8")


def write_plain_project(base: Path, source: Path) -> None:
    """Write the same pages as Markdown files and a mkdocs.yml without the plugin."""
    sys.path.insert(0, str(ROOT))
    from generator.records.pipeline import Loaded, load_catalog
    from generator.site.mkdocs_plugin import site_nav

    catalog = load_catalog([source / "entries"], source).catalog
    docs = base / "docs"
    for page in render_site(catalog):
        target = docs / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.markdown, encoding="utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = "docs"
    config["plugins"] = ["search"]
    config["nav"] = site_nav(Loaded(catalog, ()), [])  # the same navigation the plugin gives
    (base / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    shutil.copytree(ROOT / "overrides", base / "overrides")


def timed(cmd: list[str], cwd: Path, cache: Path) -> tuple[float, float]:
    """Return the wall time and the CPU time (user + system) of a command that must succeed.

    On a shared virtual machine the CPU time leaves out the time the host gave to others.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "FAILPEDIA_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


BUILDS = {
    "warm": "rebuild, nothing changed",
    "edited": "rebuild after one record changed",
    "cold": "first build, empty cache",
}


def build_times(count: int, repeats: int) -> dict[str, list[tuple[float, float]]]:
    """Return (wall, CPU) seconds of each kind of build, ``repeats`` times, by kind ("plain" and BUILDS).

    Each round runs failpedia builds with an empty cache (a fresh clone), again with nothing
    changed, and after one record was edited (a contributor's rebuild), and a plain MkDocs
    build, whose place in the round moves from round to round. Rounds repeat so that the
    machine's noise falls on every kind.
    """
    times: dict[str, list[tuple[float, float]]] = {"plain": [], **{kind: [] for kind in BUILDS}}
    with tempfile.TemporaryDirectory() as tmp:
        ours, plain, cache = Path(tmp, "ours"), Path(tmp, "plain"), Path(tmp, "cache")
        ours.mkdir()
        plain.mkdir()
        write_project(ours, count)
        write_plain_project(plain, ours)
        failpedia = [sys.executable, "-m", "generator", "build"]
        mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
        for round_no in range(repeats):
            steps = ["cold", "warm", "edited"]
            steps.insert(round_no % 4, "plain")  # the plain build moves through the round
            for kind in steps:
                if kind == "plain":
                    times["plain"].append(timed(mkdocs, plain, cache))
                    continue
                if kind == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                if kind == "edited":
                    edited = next(ours.glob(f"entries/*/synthetic-failure-{round_no:05d}.yaml"))
                    edited.write_text(edited.read_text(encoding="utf-8") + f"# edit {round_no}\n", encoding="utf-8")
                times[kind].append(timed(failpedia, ours, cache))
    return times


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for count in (1_000, 10_000):
        us = per_record_us(count, repeats)
        reference = us.pop("reference")
        total = sum(us.values())
        parts = "  ".join(f"{k} {v:7.1f}" for k, v in us.items())
        print(f"{count:>6} records: {parts}  total {total:7.1f} us/record (fastest of {repeats})")
        print(
            f"        reference: a bare yaml.load (CSafeLoader) of the same records {reference:6.1f} us/record; "
            f"the total is {total / reference:.2f}x that, {total / reference * ISSUE_REFERENCE_US / 1000:.2f} ms "
            f"on a machine where it takes {ISSUE_REFERENCE_US:.0f} us"
        )
    times = build_times(1_000, repeats)
    plain = times["plain"]
    fastest = min(wall for wall, _ in plain)
    print(f"1000 records: plain mkdocs build {fastest:.2f} s (fastest of {repeats}); failpedia build:")
    for kind, label in BUILDS.items():
        ours = min(wall for wall, _ in times[kind])
        walls = sorted(a[0] / b[0] for a, b in zip(times[kind], plain, strict=True))
        cpus = sorted(a[1] / b[1] for a, b in zip(times[kind], plain, strict=True))
        print(
            f"  {label:34s} {ours:6.2f} s  ratio {ours / fastest:.3f} fastest to fastest; same-round ratios: "
            f"wall {', '.join(f'{r:.3f}' for r in walls)} (median {walls[len(walls) // 2]:.3f}), "
            f"CPU time {', '.join(f'{r:.3f}' for r in cpus)} (median {cpus[len(cpus) // 2]:.3f})"
        )


if __name__ == "__main__":
    main()
