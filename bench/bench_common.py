"""What the bench scripts share, so each script holds only what it measures.

- the machine: load and CPU steal, printed with every figure (a shared 2-core VM varies 2x);
- percentiles and timing loops (milliseconds);
- this process's (or another's) memory, from /proc;
- the vaults benches run on: copies, synthetic vaults indexed once under /tmp/kbtui-bench;
- the SciFact set (BEIR layout) and its metrics, for the retrieval benches;
- `kbtui mcp` as an assistant starts it.

Scripts import it by name (bench/ is sys.path[0] when a script runs by path). kbtui itself is
imported inside the functions that need it: a child process that times its own start-up
(tui_latency.py's first frame) pays only for what it uses.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters

    from kbtui.config import Settings

REPO = Path(__file__).resolve().parent.parent
VAULT_EXAMPLE = REPO / "vault_example"
WORK = Path("/tmp/kbtui-bench")  # vaults built once and reused across runs
SCIFACT = Path("/work/shared/data/scifact")
CHUNKS_PER_NOTE = 5.5  # what synth_vault produces on average
WORDS_PER_NOTE = (100, 490)  # ~6.5 chunks a note, as obsidian-hub's 43k chunks in 6.6k notes

QUERIES = [
    "Who worked on Vector Watch?",
    "battery life and power budget of the watch",
    "gesture recognition model training",
    "offline sync and conflict resolution",
    "meeting decisions about the release",
    "who owns the roadmap milestone",
    "firmware bug in the sensor driver",
    "vendor contract and invoice for the factory",
    "design review feedback on the dial",
    "local first durable storage schema migration",
    "react native layout render performance",
    "quantised backbone weights export runtime",
]


# -- the machine ---------------------------------------------------------------------------
def cpu_times() -> list[int]:
    """The machine's CPU counters (user, nice, system, idle, iowait, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def machine_note(before: list[int]) -> str:
    """Load (1 and 5 min) and the share of CPU time the hypervisor stole since `before`:
    context for figures on a shared 2-core VM, where the same run varies by up to 2x."""
    spent = [b - a for a, b in zip(before, cpu_times(), strict=True)]
    steal = 100.0 * spent[7] / max(sum(spent), 1)
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (5 min {five:.2f}), CPU steal {steal:.1f}%, {os.cpu_count()} CPUs"


# -- percentiles and timing ----------------------------------------------------------------
def quantile(samples: Iterable[float], q: float) -> float:
    """The q-quantile, nearest rank (with 5 samples p95 is the slowest)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def percentiles(samples: list[float]) -> str:
    """p50 / p95 / max of millisecond samples, one line."""
    return (
        f"p50 {statistics.median(samples):6.2f} ms  p95 {quantile(samples, 0.95):6.2f} ms  "
        f"max {max(samples):6.2f} ms  (n={len(samples)})"
    )


def p50_p95(samples: list[float], digits: int = 1) -> str:
    """ "p50/p95" of millisecond samples, for one-line summaries."""
    return f"{quantile(samples, 0.5):.{digits}f}/{quantile(samples, 0.95):.{digits}f}"


def timed(fn: Callable[[int], object], rounds: int) -> list[float]:
    """Milliseconds of each of `rounds` calls fn(0), fn(1), ..."""
    out = []
    for i in range(rounds):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


Call = Callable[[str, dict[str, Any]], Mapping[str, Any]]
T = TypeVar("T")


def timed_calls(call: Call, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[float]:
    """Milliseconds of each tool call through `call` (KnowledgeBase.call, a vault handle's);
    a failed answer stops the bench."""
    out = []
    for name, args in calls:
        start = time.perf_counter()
        answer = call(name, dict(args))
        out.append((time.perf_counter() - start) * 1000)
        if not answer.get("ok", True):
            raise SystemExit(f"{name} {args} failed: {answer.get('message')}")
    return out


Samples = dict[str, list[tuple[float, float]]]  # what was timed -> (wall ms, CPU ms) a run


def timed_into(report: Samples, label: str, call: Callable[[], T]) -> T:
    """call(), its wall and this process's CPU milliseconds added to report[label]."""
    t, c = time.perf_counter(), time.process_time()
    answer = call()
    wall, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
    report.setdefault(label, []).append((wall, cpu))
    return answer


def print_samples(report: Samples, indent: str = "") -> None:
    """Each label's wall and CPU percentiles, two lines."""
    for label, runs in report.items():
        print(f"{indent}{label}:\n{indent}  wall {percentiles([w for w, _ in runs])}"
              f"\n{indent}  CPU  {percentiles([c for _, c in runs])}")  # fmt: skip


def kbtui_runs(args: list[str], runs: int, work: Path) -> list[tuple[float, float]]:
    """(wall ms, CPU ms) of `kbtui ARGS` (this venv's) in a new process each time, as an
    installed kbtui runs (bytecode cached under `work`); the first run, which writes that
    cache, left out. A failed run stops the bench."""
    import resource
    import sys

    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [str(Path(sys.executable).with_name("kbtui")), *args]
    out = []
    for i in range(runs + 1):
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
        wall = (time.perf_counter() - t) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime) * 1000
        if i:
            out.append((wall, cpu))
    return out


def wait_until(check: Callable[[], bool], timeout: float = 30.0) -> float:
    """Seconds until `check()` holds, polling every 5 ms."""
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(f"still not there after {timeout:.0f} s")
        time.sleep(0.005)
    return time.perf_counter() - t0


# -- memory --------------------------------------------------------------------------------
def memory_fields(pid: int | Literal["self"] = "self") -> dict[str, float]:
    """A process's memory lines of /proc/<pid>/status in MB (VmRSS, VmHWM the peak, RssAnon
    its own heap, RssFile mapped file pages, e.g. side files, which the OS can drop)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def rss_line(label: str) -> str:
    from bench_memory import mapped_files

    f = memory_fields()
    return (
        f"RSS {label}: {f['VmRSS']:.0f} MB (anon {f['RssAnon']:.0f}, "
        f"mapped files {f['RssFile']:.0f}, peak {f['VmHWM']:.0f})\n  {mapped_files()}"
    )


# -- vaults --------------------------------------------------------------------------------
def copy_vault(source: Path, dest: Path, link: bool = False) -> Path:
    """A copy of a vault without its index folder; `link`: notes hard-linked, not copied
    (a bench then writes only files of its own: a note it edits is replaced, not rewritten)."""
    from kbtui.config import INDEX_DIRNAME

    copy = os.link if link else shutil.copy2
    shutil.copytree(source, dest, copy_function=copy, ignore=shutil.ignore_patterns(INDEX_DIRNAME))
    return dest


def synthetic_vault(work: Path, chunks: int) -> Settings:
    """A ~`chunks`-chunk synth_vault.py vault under `work`, indexed once with the hash
    embedder (the real model would take an hour at 100k chunks on 2 cores)."""
    from synth_vault import make_vault

    from kbtui.config import Settings
    from kbtui.embed import HashEmbedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store

    notes = int(chunks / CHUNKS_PER_NOTE)
    vault = work / f"synth_{notes}"
    settings = Settings.for_vault(vault)
    if not settings.db_path.exists():
        started = time.perf_counter()
        make_vault(vault, notes, 0)
        store = Store(settings.db_path)
        Indexer(settings, store, HashEmbedder()).run()
        store.close()
        print(f"built a {notes}-note synthetic vault in {time.perf_counter() - started:.0f} s")
    return settings


def hub_sized_vault(work: Path, notes: int, model_id: str) -> Path:
    """A synth_vault.py vault shaped like obsidian-hub (`notes` notes, ~6.5 chunks each)
    under `work`, indexed once (see `indexed_vault`)."""
    from synth_vault import make_vault

    from kbtui.config import Settings

    cache = work / f"watch_synth_{notes}"
    if not Settings.for_vault(cache).db_path.exists():
        make_vault(cache, notes, 0, WORDS_PER_NOTE)
    return indexed_vault(cache, cache, model_id)


def indexed_vault(source: Path, cache: Path, model_id: str) -> Path:
    """`source` indexed once into `cache` with the hash embedder, its vectors labelled as
    `model_id`'s (the real model's: their values do not change what a save or a start costs,
    and a runtime with the real model then embeds only what changes)."""
    from kbtui.config import Settings
    from kbtui.embed import HashEmbedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store

    settings = Settings.for_vault(cache)
    if not settings.db_path.exists():
        started = time.perf_counter()
        if cache != source:
            copy_vault(source, cache)
        partial = settings.db_path.with_suffix(".building")
        store = Store(partial)
        Indexer(settings, store, HashEmbedder()).run()
        store.set_meta("embed_model", model_id)
        stats = store.stats()
        store.close()
        partial.rename(settings.db_path)
        print(
            f"indexed {source.name}: {stats['notes']} notes, {stats['chunks']} chunks "
            f"in {time.perf_counter() - started:.0f} s"
        )
    return cache


def working_copy(cache: Path, vault: Path) -> Path:
    """A copy of an indexed vault to run on: notes hard-linked, the index file copied."""
    from kbtui.config import Settings

    copy_vault(cache, vault, link=True)
    settings, cached = Settings.for_vault(vault), Settings.for_vault(cache)
    settings.db_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached.db_path, settings.db_path)
    return vault


def start_owner(vault: Path, timeout: float = 60) -> subprocess.Popen[bytes]:
    """`kbtui mcp` on `vault` as its owner, once it serves other processes; its stdin stays
    open, so it serves until terminated."""
    import sys

    from kbtui.config import Settings
    from kbtui.runtime.remote import RemoteVault

    command = ["-m", "kbtui.cli", "mcp", "--vault", str(vault), "--log-level", "warning"]
    proc = subprocess.Popen(
        [sys.executable, *command], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    settings = Settings.for_vault(vault)

    def serving() -> bool:
        remote = RemoteVault.connect(settings)
        if remote is not None:
            remote.close()
        return remote is not None

    try:
        wait_until(serving, timeout)
    except TimeoutError:
        proc.kill()
        raise SystemExit(f"the owner did not start serving within {timeout:.0f} s") from None
    return proc


# -- SciFact -------------------------------------------------------------------------------
MODES: tuple[Literal["keyword", "vector", "hybrid"], ...] = ("keyword", "vector", "hybrid")
Qrels = dict[str, dict[str, int]]  # query id -> {doc id: graded relevance}


def load_scifact(
    folder: Path = SCIFACT, limit: int | None = None
) -> tuple[list[dict[str, str]], dict[str, str], Qrels]:
    """(corpus, the first `limit` training queries with judgments, their qrels)."""
    corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
    queries = {
        q["_id"]: q["text"]
        for q in map(json.loads, (folder / "queries_train.jsonl").open(encoding="utf-8"))
    }
    qrels: Qrels = defaultdict(dict)
    for line in (folder / "qrels_train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, score = line.split("\t")
        if int(score) > 0:
            qrels[qid][doc] = 1
    chosen = [q for q in queries if q in qrels][:limit]
    return corpus, {q: queries[q] for q in chosen}, qrels


def subset(
    corpus: list[dict[str, str]], queries: dict[str, str], qrels: Qrels, n: int
) -> list[dict[str, str]]:
    """Every abstract judged for the queries, plus the first n others by id as distractors."""
    judged = {d for q in queries for d in qrels[q]}
    others = sorted((d for d in corpus if d["_id"] not in judged), key=lambda d: d["_id"])
    keep = judged | {d["_id"] for d in others[:n]}
    return [d for d in corpus if d["_id"] in keep]


def write_vault(corpus: list[dict[str, str]], vault: Path) -> None:
    """One note per abstract, named by its id; JSON strings are valid YAML scalars."""
    vault.mkdir(parents=True)
    for doc in corpus:
        title = json.dumps(doc["title"], ensure_ascii=False)
        (vault / f"{doc['_id']}.md").write_text(
            f"---\ntitle: {title}\n---\n{doc['text']}\n", encoding="utf-8"
        )


def doc_of(result: Mapping[str, Any]) -> str:
    """The note (file stem: the SciFact doc id) a kb_search result names."""
    return Path(str(result["metadata"]["file_path"])).stem


def metrics(
    ranked: list[str], top100: list[str], grades: dict[str, int]
) -> tuple[float, float, float]:
    """(nDCG@10, Recall@100, MRR@10) as BEIR (pytrec_eval) computes them: the grade is the gain,
    so binary judgments give binary nDCG; recall and MRR count any grade above 0."""
    dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    best = sorted((g for g in grades.values() if g > 0), reverse=True)[:10]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(best))
    relevant = {d for d, g in grades.items() if g > 0}
    recall = len(set(top100[:100]) & relevant) / len(relevant)
    mrr = next((1 / (i + 1) for i, d in enumerate(ranked[:10]) if d in relevant), 0.0)
    return dcg / ideal, recall, mrr


def commit() -> str:
    """The commit measured, with "+dirty" when tracked files have uncommitted changes."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout

    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


# -- kbtui mcp -----------------------------------------------------------------------------
def mcp_server(vault: Path) -> StdioServerParameters:
    """`kbtui mcp --vault vault` over stdio, as an assistant starts it."""
    import sys

    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "kbtui.cli", "mcp", "--vault", str(vault), "--log-level", "warning"]
    return StdioServerParameters(command=sys.executable, args=args, cwd=REPO)


async def server_status(session: ClientSession) -> dict[str, Any]:
    """The server's kbtui://status (its pid, index state, stats)."""
    result = await session.read_resource("kbtui://status")
    return dict(json.loads(getattr(result.contents[0], "text", "{}")))
