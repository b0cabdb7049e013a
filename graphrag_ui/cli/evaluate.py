"""``python -m graphrag_ui eval --index DIR --questions FILE [--mode M]… [--param NAME=RANGE]…``.

Scores every question of a set (our JSONL, MultiHop-RAG, HotpotQA / 2Wiki or GraphRAG-Bench) against its
gold evidence for every mode (default: every mode the index can run), across one parameter range
(``--param top_k=5:40:5`` or ``top_k=5,10,20``; other ``--param`` are fixed). Context only: retrieval never
calls a model (LightRAG keywords come from the question's ``hl_keywords``/``ll_keywords`` or the offline
extractor). Prints a table per config (mean evidence recall with its bootstrap 95 % interval, entity
recall, tokens, the Pareto frontier marked); ``--csv`` writes one row per question × mode × step,
``--json`` the rows with where each gold item came in and why each missed one was missed (``-``: stdout).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from graphrag_ui.base.errors import UserError
from graphrag_ui.base.i18n import msg
from graphrag_ui.base.terminal import safe_text, said
from graphrag_ui.base.timing import elapsed_s, now
from graphrag_ui.cli.batch import check_mode
from graphrag_ui.cli.query import _emit, _load, _params
from graphrag_ui.evaluation.export import csv_text, json_text
from graphrag_ui.evaluation.formats import FORMATS, load_questions
from graphrag_ui.evaluation.plan import Config, EvalPlan
from graphrag_ui.evaluation.runner import default_modes, processes, run_evaluation
from graphrag_ui.evaluation.stats import aggregate, paired
from graphrag_ui.retrieval.registry import MODE_MODULES
from graphrag_ui.retrieval.spec.schema import VERSION_PARAM
from graphrag_ui.services.sweep import parse_values, sweepable

MAX_WORKERS = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index", required=True, help="index directory (e.g. data/sample/en/index)")
    parser.add_argument("--questions", required=True, help="question set with gold (JSONL; see docs/evaluation.md)")
    parser.add_argument(
        "--mode",
        action="append",
        default=[],
        help=f"a mode to score (repeat; default: every mode the index can run): {', '.join(MODE_MODULES)}",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter for every mode that has it; at most one holds a range: NAME=START:STOP:STEP or NAME=a,b,c",
    )
    parser.add_argument(
        "--version",
        action="append",
        default=[],
        metavar="MODE=V[,V]",
        help="releases to run, e.g. lightrag.local=1.4.7,1.5.7",
    )
    parser.add_argument(
        "--as",
        dest="aliases",
        action="append",
        default=[],
        metavar="MODE=NAME",
        help="the swept parameter's own name in a mode, e.g. ms.local=top_k_mapped_entities, ms.basic=k",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="auto", help="the question file's format (default: told by its fields)"
    )
    parser.add_argument(
        "--on-bad",
        choices=["skip", "refuse"],
        default="skip",
        help="bad lines: skip them (named on stderr) or refuse the file",
    )
    parser.add_argument("--csv", metavar="FILE", help="one row per question × mode × step as CSV (- for stdout)")
    parser.add_argument(
        "--json", metavar="FILE", help="rows, where each item came in, why each was missed, summaries (- for stdout)"
    )
    parser.add_argument(
        "--judge",
        action="store_true",
        help="also answer each row with the configured model and judge correctness and faithfulness (costs money)",
    )
    parser.add_argument(
        "--judge-budget",
        type=float,
        default=1.0,
        metavar="USD",
        help="refuse to judge when the estimated cost is above this (default 1.0)",
    )
    parser.add_argument("--judge-concurrency", type=int, default=4, help="rows talking to the model at once (1–16)")
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="a paired comparison of two configs per question (wins, losses, ties, Wilcoxon, the questions that "
        "flip): MODE[@VERSION][=VALUE], e.g. --compare nano.local=20 nano.naive=20",
    )
    parser.add_argument("--workers", type=int, default=1, help=f"worker processes (1–{MAX_WORKERS}; same rows as one)")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on a Dask distributed cluster (tcp://HOST:PORT); every worker reads --index from the same path",
    )


def _range_and_fixed(pairs: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    ranged = [name for name, value in pairs.items() if ":" in value or "," in value]
    if len(ranged) > 1:
        raise UserError(
            msg("more than one range: {names}", names=", ".join(ranged)), fix=msg("sweep one parameter at a time")
        )
    name = ranged[0] if ranged else ""
    return name, pairs.get(name, ""), {k: v for k, v in pairs.items() if k != name}


def _versions(specs: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for spec in specs:
        mode, sep, values = spec.partition("=")
        if not sep or not values.strip():
            raise UserError(
                msg("--version expects MODE=V[,V], got {spec}", spec=repr(spec)),
                fix=msg("e.g. lightrag.local=1.4.7,1.5.7"),
            )
        check_mode(mode.strip())
        out[mode.strip()] = [v.strip() for v in values.split(",") if v.strip()]
    return out


def _check_outputs(args: argparse.Namespace) -> None:
    """``--csv`` / ``--json`` checked before anything runs: a run of an hour must not end in "cannot write",
    nor overwrite its own question file or its index."""
    targets = [t for t in (args.csv, args.json) if t is not None]
    if "" in targets or any("\x00" in t for t in targets):
        raise UserError(msg("--csv and --json need a file name (or - for stdout)"))
    if targets.count("-") > 1:
        raise UserError(msg("only one of --csv and --json can go to stdout"), fix=msg("write the other to a file"))
    files = [Path(os.path.realpath(t)) for t in targets if t != "-"]
    if len(set(files)) < len(files):
        raise UserError(msg("--csv and --json name the same file"), fix=msg("give each its own file"))
    for target, file in zip([t for t in targets if t != "-"], files, strict=True):
        _writable(target, file, Path(os.path.realpath(args.questions)), Path(os.path.realpath(args.index)))


def _writable(target: str, file: Path, questions: Path, index: Path) -> None:
    if file == questions:
        raise UserError(msg("the output file is the question file"), where=target, fix=msg("give another file name"))
    if file == index or index in file.parents:
        raise UserError(msg("the output file is inside the index folder"), where=target, fix=msg("write it elsewhere"))
    if file.is_dir():
        raise UserError(msg("the output file is a folder"), where=target, fix=msg("give a file name"))
    if not file.parent.is_dir():
        raise UserError(msg("no such folder for the output file"), where=target, fix=msg("create the folder first"))
    try:  # the folder takes a new file (the results are written beside, then moved over the target)
        tempfile.TemporaryFile(dir=file.parent).close()
    except OSError as exc:
        raise UserError(
            msg("cannot write into the output file's folder: {error}", error=str(exc.strerror)), where=target
        ) from None
    if file.exists() and not file.is_file():
        raise UserError(msg("the output file is not a regular file"), where=target, fix=msg("give a file name"))


def _write(target: str, text: str) -> None:
    """Write ``text`` whole or not at all: into a new file beside the target, then moved over it."""
    if target == "-":
        _emit(text)
        return
    file = Path(os.path.realpath(target))
    temp = None
    try:
        with tempfile.NamedTemporaryFile("wb", dir=file.parent, prefix=f".{file.name}.", delete=False) as handle:
            temp = handle.name
            handle.write(text.encode("utf-8", errors="backslashreplace"))
        os.chmod(temp, file.stat().st_mode & 0o7777 if file.exists() else 0o666 & ~_umask())
        os.replace(temp, file)
    except OSError as exc:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        raise UserError(msg("cannot write the results: {error}", error=str(exc.strerror)), where=target) from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _aliases(specs: list[str], modes: list[str]) -> dict[str, str]:
    out = {}
    for spec in specs:
        mode, sep, own = spec.partition("=")
        if not sep or mode.strip() not in modes or not own.strip():
            raise UserError(
                msg("--as expects MODE=NAME for a chosen mode, got {spec}", spec=repr(spec)),
                fix=msg("e.g. --as ms.basic=k"),
            )
        out[mode.strip()] = own.strip()
    return out


def build_plan(args: argparse.Namespace, index) -> EvalPlan:
    """The plan the arguments ask for, every name checked against the modes' schemas."""
    modes = list(dict.fromkeys(args.mode)) or default_modes(index)
    for mode in modes:
        check_mode(mode)
    name, raw, fixed = _range_and_fixed(_params(args.param))
    if VERSION_PARAM in fixed or name == VERSION_PARAM:
        raise UserError(
            msg("give releases with --version, not --param version"), fix=msg("e.g. --version lightrag.local=1.5.7")
        )
    plan = EvalPlan(
        modes, name, versions=_versions(args.version), fixed=fixed, param_names=_aliases(args.aliases, modes)
    )
    for mode, own in plan.param_names.items():
        if not plan.param_of(mode):
            raise UserError(
                msg("{mode} has no numeric parameter {param}", mode=mode, param=own),
                fix=msg("sweep one of: {names}", names=", ".join(sweepable(mode))),
            )
    if name:
        types = sorted({plan.param_type(m) for m in modes} - {""})
        if not types:
            raise UserError(
                msg("no chosen mode has a numeric parameter {name}", name=repr(name)),
                fix=msg("sweep a number the modes share, e.g. top_k"),
            )
        plan.values = parse_values("float" if "float" in types else "int", raw)
    return plan


def _print_table(run, summaries) -> None:
    param = run.plan.param or "-"
    print(f"{len(run.rows)} run(s): {run.questions} question(s) × {len(run.configs)} config(s), {run.seconds:.1f} s")
    print(
        f"{'mode':<24} {param:>10} {'evidence recall (95% CI)':>26} {'entity':>7} {'all':>5} {'tokens':>8} {'idle':>5}  pareto"
    )
    for s in summaries:
        ev, en = s.metrics["evidence_recall"], s.metrics["entity_recall"]
        ci = f"{ev.mean:.3f} [{ev.low:.3f}, {ev.high:.3f}]" if ev.mean is not None else "-"
        head = f"{s.config.mode}@{s.config.version}" if s.config.version else s.config.mode
        value = "" if s.config.value is None else str(s.config.value)
        idle = s.mean("unused_token_share")
        print(
            f"{head:<24} {value:>10} {ci:>26} {_num(en.mean):>7} {_num(s.mean('all_evidence')):>5} "
            f"{_num(s.mean('context_tokens'), 0):>8} {_num(idle, 2):>5}  {'*' if s.pareto else ''}"
        )


def _num(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def run(args: argparse.Namespace) -> int:
    _check_outputs(args)
    if args.cluster is not None:
        from graphrag_ui.evaluation.cluster import check_address

        check_address(args.cluster)  # refused before the index is read
        if args.workers != 1:
            raise UserError(msg("give --cluster or --workers, not both"), fix=msg("the cluster's workers run the jobs"))
    if not 1 <= args.workers <= MAX_WORKERS:
        raise UserError(msg("--workers must be between 1 and {limit}, got {n}", limit=MAX_WORKERS, n=args.workers))
    questions = load_questions(args.questions, fmt=args.format, on_bad=args.on_bad)
    for problem in questions.skipped:
        print(f"skipped {args.questions}:{said(str(problem), one_line=True)}", file=sys.stderr)
    index = _load(args.index)
    plan = build_plan(args, index)
    plan.check(index)  # versions and values checked, notes filled
    for note in plan.notes:
        print(f"note: {said(str(note), one_line=True)}", file=sys.stderr)

    last: list[float | None] = [None]

    def progress(done: int, total: int) -> None:
        if done == total or last[0] is None or elapsed_s(last[0]) >= 1.0:  # at most once a second on a long run
            last[0] = now()
            print(f"eval: {done}/{total} runs", file=sys.stderr, flush=True)

    pair = [_config(spec, plan) for spec in args.compare] if args.compare else None
    settings = _judge_settings(args)
    executor = processes(args.index, args.workers) if args.workers > 1 else None
    if args.cluster is not None:
        from graphrag_ui.evaluation.cluster import dask_executor

        executor = dask_executor(args.cluster, str(Path(args.index).resolve()))
    run_ = run_evaluation(index, questions, plan, executor=executor, progress=progress)
    for qid, key, error in run_.errors:
        print(f"error: {safe_text(qid, one_line=True)} {key}: {said(error, one_line=True)}", file=sys.stderr)
    summaries = aggregate(run_)
    judgements = _judge(args, index, questions, run_, settings) if settings is not None else None
    if args.csv is not None:
        _write(args.csv, csv_text(run_, judgements))
    if args.json is not None:
        _write(args.json, json_text(run_, summaries, questions, judgements))
    if "-" not in (args.csv, args.json):
        _print_table(run_, summaries)
    if pair:
        _print_pair(paired(run_, *pair), sys.stderr if "-" in (args.csv, args.json) else sys.stdout)
    return 1 if run_.errors else 0


def _config(spec: str, plan: EvalPlan) -> Config:
    """``MODE[@VERSION][=VALUE]`` as one of the plan's configs (refused, naming them, when it is none)."""
    head, _, value = spec.partition("=")
    mode, _, version = head.partition("@")
    for config in plan.configs():
        if (config.mode, config.version) != (mode.strip(), version.strip()):
            continue
        if (not value and config.value is None) or (value and config.value is not None and _same(config.value, value)):
            return config
    shown = ", ".join(_spec(c) for c in plan.configs()[:12])
    raise UserError(
        msg("--compare {spec} is not a config of this run", spec=repr(spec)), fix=msg("configs: {names}", names=shown)
    )


def _same(value: object, text: str) -> bool:
    try:
        return float(value) == float(text)
    except ValueError:
        return False


def _spec(config: Config) -> str:
    head = f"{config.mode}@{config.version}" if config.version else config.mode
    return head if config.value is None else f"{head}={config.value}"


def _print_pair(p, stream) -> None:
    test = "-" if p.p_value is None else f"W={p.statistic:g}, p={p.p_value:.4f}"
    mean = "-" if p.mean_difference is None else f"{p.mean_difference:+.3f}"
    print(f"{_spec(p.a)} vs {_spec(p.b)} on {p.metric} over {p.n} question(s):", file=stream)
    print(f"  wins {p.wins}, losses {p.losses}, ties {p.ties}; mean difference {mean}; Wilcoxon {test}", file=stream)
    for qid, a, b in p.flips:
        print(f"  {safe_text(qid, one_line=True)}: {a:.3f} vs {b:.3f}", file=stream)


def _judge_settings(args: argparse.Namespace):
    """The model settings when --judge asks for them, refused before anything runs when none is configured."""
    if not args.judge:
        return None
    from graphrag_ui.evaluation.judge import MAX_CONCURRENCY
    from graphrag_ui.model_client.settings import LLMSettings

    if not 1 <= args.judge_concurrency <= MAX_CONCURRENCY:
        raise UserError(
            msg(
                "--judge-concurrency must be between 1 and {limit}, got {n}",
                limit=MAX_CONCURRENCY,
                n=args.judge_concurrency,
            )
        )
    if not (args.judge_budget >= 0 and args.judge_budget < float("inf")):
        raise UserError(msg("--judge-budget must be a number of dollars, 0 or more"))
    settings = LLMSettings.from_env_and_secrets()
    if not settings.configured:
        raise UserError(
            msg("--judge needs a model, and none is configured"),
            fix=msg("set GRAPHRAG_UI_LLM_MODEL (and its key), or run without --judge"),
        )
    return settings


def _judge(args: argparse.Namespace, index, questions, run_, settings):
    from graphrag_ui.evaluation.judge import estimate, judge_run, summary

    est, retrievals = estimate(index, questions, run_, settings)
    cost = "unknown (no price for this model)" if est.cost_usd is None else f"about ${est.cost_usd:.4f}"
    print(
        f"judge ({est.prompt_version}, {said(settings.model, one_line=True)}): {est.rows} row(s), at most {est.calls} "
        f"call(s) ({est.cached} answer(s) cached), ~{est.prompt_tokens:,} prompt + ~{est.completion_tokens:,} "
        f"answer tokens, cost {cost}",
        file=sys.stderr,
    )
    if est.cost_usd is not None and est.cost_usd > args.judge_budget:
        raise UserError(
            msg(
                "judging would cost about ${cost}, more than --judge-budget {budget}",
                cost=f"{est.cost_usd:.4f}",
                budget=args.judge_budget,
            ),
            fix=msg("raise --judge-budget, or judge fewer questions, modes or steps"),
        )

    def progress(done: int, total: int) -> None:
        print(f"judge: {done}/{total} rows", file=sys.stderr, flush=True)

    judgements = judge_run(
        index, questions, run_, settings, retrievals=retrievals, concurrency=args.judge_concurrency, progress=progress
    )
    for kind, counts in summary(judgements).items():
        mean = "-" if counts["mean"] is None else f"{counts['mean']:.3f}"
        print(
            f"{kind}: mean {mean} (read {counts['ok']}, unreadable {counts['unreadable']}, "
            f"failed {counts['error']}, skipped {counts['skipped']})",
            file=sys.stderr,
        )
    return judgements
