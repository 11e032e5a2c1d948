"""GD207: autograd history that outlives its iteration.

For one sampled iteration at a time (from one optimizer step to the next) a
`TorchFunctionMode` sees every torch call. Two things betray a graph kept
alive: an op that extends a graph made before the iteration began (its input's
`grad_fn` has a smaller autograd sequence number than the iteration's first
node: `total += loss`), and a tensor with history made in the iteration that is
still alive `lag` steps later (outputs appended to a list). Outside the sampled
iterations nothing is installed, so the hot path pays nothing.

Both are judged by the graph's lifetime, not by how it was stored: results
that extended an old graph are followed by a sentinel on their graph node
(loss_lifetimes.follow) and count only when that node is still alive `lag`
steps after the window. A metric read from the step's logits after `step()`
(`_, pred = out.topk(1)`) extends the old graph too, but its result is
rebound next iteration and the graph goes with it; a running total chains
every iteration's graph onto the last and keeps them all.

Between windows, loss results are followed by loop/loss_lifetimes.py: a line
whose loss results pile up alive (an evaluation without no_grad summing
`criterion(...)`) is caught whenever it happens, not only in a window, unless
the pile is backpropagated and released within the next optimizer step (a
reinforcement-learning episode's losses, a MAML outer step's task losses).
"""

from __future__ import annotations

import ast
import collections
import linecache
import sys
import weakref

import torch
from torch.overrides import TorchFunctionMode

from graddoctor.finding import Finding
from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, frame_locals, is_user_file
from graddoctor.rules.loop.gd207_graph_kept_alive.lifetimes import LossLifetimes, Pile, follow
from graddoctor.lossdata import patches as loss_patches
from graddoctor.rules import make
from graddoctor.session import mode_stack, torch_private
from graddoctor.session.rhythm import disrupt
from graddoctor.session.observer import BackwardEvent, Observer, StepEvent

_MAX_TRACKED = 4096
_NEAR = 10  # lines: a window's accumulating line this close below a kept loss line names the same fact


def _sequence_now() -> int:
    """The autograd sequence number the next node will get."""
    with torch.enable_grad():
        probe = torch.zeros((), requires_grad=True) * 1
    return probe.grad_fn._sequence_nr() + 1


class _Recorder(TorchFunctionMode):
    _graddoctor_hidden_when_compiled = True  # session/compiled.py takes it off around compiled code

    def __init__(self, start_seq: int, loop_code, session) -> None:
        super().__init__()
        self.start_seq = start_seq
        self.loop_code = loop_code
        self.session = session
        self.failed = False  # our bookkeeping failed once: recorded, then the window records nothing more
        self.extended: dict[tuple, list] = {}  # (file, line) -> followed nodes of results that extended an old graph
        self.extended_params: dict[tuple, set] = {}  # (file, line) -> parameter ids those old graphs reach
        self.made: dict[tuple, list] = {}  # (file, line) -> weakrefs of tensors with history made there
        self.tracked = 0
        self.steps_at_open: dict[int, int] = {}  # optimizer id -> its steps when the window opened

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if torch.compiler.is_compiling():
            # pushed inside code dynamo traces (a loop compiled whole, the window opened by our
            # step wrapper there): stay transparent, so the graph is the user's own
            return func(*args, **(kwargs or {}))
        out = func(*args, **(kwargs or {}))
        if not torch.is_grad_enabled() or self.failed:
            return out
        try:
            self._record(args, kwargs, out)
        except Exception:  # never let bookkeeping break the user's op
            self.failed = True
            record_internal_error(self.session, "kept-alive: recording an op")
        return out

    def _record(self, args, kwargs, out) -> None:
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        fresh = [t for t in outputs if isinstance(t, torch.Tensor) and t.grad_fn is not None]
        if not fresh:
            return
        old = False
        for value in list(args) + list((kwargs or {}).values()):
            if isinstance(value, torch.Tensor) and value.grad_fn is not None:
                if value.grad_fn._sequence_nr() < self.start_seq:
                    old = True
                    break
        if not old and self.tracked >= _MAX_TRACKED:
            return
        where = self._where(inside_model=old)
        if where is None:
            return
        if old:
            # followed by their graph nodes: an op on a tensor of the iteration just stepped whose
            # result is dropped or rebound (an accuracy after `step()`, `_, pred = out.topk(1)`)
            # keeps nothing alive for long; a running total's node is chained into the next one
            self.extended.setdefault(where, []).extend(follow(t.grad_fn) for t in fresh)
            if where not in self.extended_params:  # once per line: the graph is walked, bounded
                self.extended_params[where] = reached_parameters(fresh[0].grad_fn)
        if self.tracked < _MAX_TRACKED:
            refs = self.made.setdefault(where, [])
            for t in fresh:
                refs.append(weakref.ref(t))
                self.tracked += 1

    def _where(self, inside_model: bool = False) -> tuple | None:
        """The line in the training loop's own function, else the outermost user line below it.

        `inside_model`: an op that extends an old graph inside a user module's method
        (`self.running = (1 - m) * self.running + m * mean` in a hand-written batch norm) is
        named at that line, where the history is kept, not at the loop's `output = model(x)`."""
        frame = sys._getframe(3)
        outer = None
        loop_code = self.loop_code
        while frame is not None:
            code = frame.f_code
            if code is loop_code:
                return (code.co_filename, frame.f_lineno)
            if is_user_file(code.co_filename):  # once per frame
                if inside_model and isinstance(frame_locals(frame).get("self"), torch.nn.Module):
                    return (code.co_filename, frame.f_lineno)
                outer = (code.co_filename, frame.f_lineno)
                if loop_code is None:
                    return outer
            frame = frame.f_back
        return outer


class KeptAlive(Observer):
    name = "kept-alive"
    codes = frozenset({"GD207"})

    def __init__(self, first: int = 2, every: int = 50, lag: int = 2) -> None:
        self.first = first
        self.every = every
        self.lag = lag
        self._recorder: _Recorder | None = None
        self._closed: tuple[int, _Recorder] | None = None
        self._loop_code = None
        self._found: dict[tuple, Finding] = {}
        self.windows = 0
        self.cycles = 0
        self._next_window = first
        self.lifetimes = LossLifetimes()
        self._lifetime_found: dict[tuple, Finding] = {}
        self._following = True
        self._asleep = False  # sleeping through repeated iterations (session/rhythm.py): told by wake_in, resync

    def start(self, session) -> None:
        super().start(session)
        loss_patches.listen(self)

    # --- loss results, every call (cheap) ---------------------------------------------------

    @loss_patches.ignored
    def on_loss(self, name: str, args: tuple, kwargs: dict, frame) -> None:
        pass  # the result is what is followed

    def on_loss_result(self, result, frame) -> None:
        if not self._following or torch.compiler.is_compiling():  # never inside a graph being traced
            return
        self._follow(self.lifetimes.on_result, result, frame)
        if self._asleep and self.lifetimes.pending():
            # a line's results pile up (a list of losses begun late): its verdict needs the backwards and
            # steps that follow, seen as they come
            disrupt(self.session)

    def _follow(self, call, *args) -> None:
        try:
            piles = call(*args)
        except Exception:  # our failure stops the following, never the user's step
            self._following = False
            record_internal_error(self.session, "kept-alive: following loss results")
            return
        for pile in piles:
            self._kept_pile(pile)

    def _kept_pile(self, pile: Pile) -> None:
        where = pile.where
        if where.file is None or (where.file, where.line) in self._lifetime_found:
            return
        fate = _fate(pile, self.lifetimes.lag)
        self._lifetime_found[(where.file, where.line)] = make("GD207", (
            f"{pile.count} results of the loss computed at this line were alive at once, the oldest made "
            f"{pile.age} calls earlier, and they were {fate}: they are kept (summed into a running total, "
            "or stored) with their autograd graphs, so memory grows with every batch."),
            evidence={"alive_at_once": pile.count, "oldest_calls_ago": pile.age}, **where.shown())

    def before_backward(self, event: BackwardEvent) -> None:
        if self._following:
            self._follow(self.lifetimes.on_backward)
        if self._loop_code is None:
            frame = sys._getframe(0)
            while frame is not None:
                if frame.f_code.co_filename == event.where.file and frame.f_lineno == event.where.line:
                    self._loop_code = frame.f_code
                    break
                frame = frame.f_back

    def before_step(self, event: StepEvent) -> None:
        """The window closes as the step that ends its iteration begins: the optimizer's own ops (under
        no_grad, nothing a window records) and the observers' measurements around the step do not
        pass through the recorder's Python, which was most of a window's cost (and of a session's start)."""
        if self._recorder is None or self.cycles + 1 <= self._opened_at:
            return
        counts = self.session.discovered.steps_by_optimizer
        key = id(event.optimizer)
        others = [n for k, n in counts.items() if k != key]
        if not others or counts.get(key, 0) + 1 <= min(others):  # as after_step will count it: it ends a cycle
            self._close(self.cycles + 1)

    def after_step(self, event: StepEvent) -> None:
        # An iteration ends with the step of the optimizer that steps least often (the last
        # of them when they tie): a GAN's generator step, not its discriminator's.
        counts = self.session.discovered.steps_by_optimizer
        mine = counts.get(id(event.optimizer), 0)
        if mine > min(counts.values(), default=mine):
            return
        self.cycles += 1
        step = self.cycles
        if self._following:
            self._follow(self.lifetimes.on_step)
        if self._recorder is not None:
            if step > self._opened_at:
                self._close(step)
        elif self._closed is not None:
            closed_at, recorder = self._closed
            if step >= closed_at + self.lag:
                self._closed = None
                self._judge(recorder, step - closed_at)
        elif step >= self._next_window:
            # Never slide our mode in under or over a mode the user (or deep mode) has
            # entered: neither could be exited cleanly. The window waits until they are gone.
            if torch_private.function_mode_count() == 0 and not self.session.function_mode_held(self):
                self._open(step)
                self._next_window = step + max(self.every, self.lag + 2) if self.every else float("inf")

    # --- repeated iterations (session/rhythm.py) ------------------------------------------------

    def wake_in(self, rhythm) -> int | None:
        """Loss results are followed at every call whatever the rhythm (they are not session events);
        the backwards and steps only count, except at the iteration where a window opens, closes or
        is judged (windows open by iteration count), and while a pile of loss results waits for its
        verdict (a new pile ends the steady rhythm: `on_loss_result`)."""
        if self._recorder is not None or self.lifetimes.pending() or self._loop_code is None:
            return 0
        if self._closed is not None:
            target = self._closed[0] + self.lag
        elif self._next_window == float("inf"):
            self._asleep = True
            return None
        else:
            target = self._next_window
        # the iteration that ends at cycle `target` is seen; those before it can be missed
        wake = int(target) - self.cycles - 1
        self._asleep = wake > 0
        return max(wake, 0)

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        """Each missed iteration ended one cycle (its step of the optimizer that steps least often), as
        `after_step` counts, and held `rhythm.backwards` backwards; the missed start of the iteration in
        progress, its backwards."""
        self._asleep = False
        self.cycles += skipped
        self.lifetimes.steps += skipped
        self.lifetimes.backwards += skipped * rhythm.backwards + sum(1 for k in prefix if k[0] == "backward")

    @property
    def holds_function_mode(self) -> bool:  # type: ignore[override]
        return self._recorder is not None

    def _open(self, step: int) -> None:
        recorder = _Recorder(_sequence_now(), self._loop_code, self.session)
        recorder.steps_at_open = dict(self.session.discovered.steps_by_optimizer)
        recorder.__enter__()
        self._recorder, self._opened_at = recorder, step
        self.windows += 1

    def _close(self, step: int) -> None:
        recorder, self._recorder = self._recorder, None
        try:
            mode_stack.remove(recorder)
        finally:
            self._closed = (step, recorder)

    def _judge(self, recorder: _Recorder, steps_later: int) -> None:
        if recorder.failed:
            return  # what it holds is partial: no finding from it
        for where, refs in recorder.extended.items():
            if any(r() is not None for r in refs):
                spanned = self._spanned(recorder, recorder.extended_params.get(where, set()))
                if spanned >= 2:
                    self._report(where, None, spanned)
        for where, refs in recorder.made.items():
            alive = [t for t in (r() for r in refs) if t is not None]
            if alive:
                reached: set = set()
                for t in alive[:8]:
                    reached |= reached_parameters(t.grad_fn)
                spanned = self._spanned(recorder, reached)
                if spanned >= 2:
                    self._report(where, (len(alive), steps_later), spanned)

    def _spanned(self, recorder: _Recorder, param_ids: set) -> int:
        """The most steps taken since the window opened by an optimizer holding one of `param_ids`:
        history is kept across steps only if the optimizer of its parameters has stepped since."""
        now = self.session.discovered.steps_by_optimizer
        before = recorder.steps_at_open
        out = 0
        for record in self.session.optimizers():
            key = id(record.optimizer)
            if key in now and not param_ids.isdisjoint(record.param_ids()):
                out = max(out, now[key] - before.get(key, 0))
        return out

    def _report(self, where: tuple, alive: tuple | None, spanned: int) -> None:
        if where in self._found:
            return
        loc = Location(where[0], where[1])
        if alive is None:
            message = ("This line adds to a tensor whose autograd graph was built in an earlier iteration: "
                       "each iteration chains its graph onto the last one, so memory grows step after step.")
        else:
            n, later = alive
            message = (f"{n} tensor{'s' if n != 1 else ''} with autograd history made at this line "
                       f"{'are' if n != 1 else 'is'} still alive {later} optimizer steps later (kept in a list, "
                       "a running total or an attribute): each one keeps its graph, so memory grows step after step.")
        hint = _accumulation_fix(where) if alive is None else None
        evidence = {"chained_graph": True} if alive is None else {"alive": alive[0], "steps_later": alive[1]}
        evidence["optimizer_steps_spanned"] = spanned
        self._found[where] = make("GD207", message, hint=hint, evidence=evidence, **loc.shown())

    def stop(self) -> None:
        loss_patches.unlisten(self)
        if self._following:
            self._follow(self.lifetimes.settle, True)
        if self._recorder is not None:
            recorder, self._recorder = self._recorder, None
            mode_stack.remove(recorder)
        self._closed = None

    def findings(self) -> list[Finding]:
        out = list(self._found.values())
        for (file, line), found in self._lifetime_found.items():
            # A window saw the op that chains onto the kept graph (`total += loss` a few lines
            # below the loss): that line is the accumulating one, said once.
            if not any(f == file and 0 <= n - line <= _NEAR for f, n in self._found):
                out.append(found)
        return out


_WALK_LIMIT = 2000  # graph nodes visited to find which parameters a kept history reaches


def reached_parameters(node) -> set:
    """Ids of the leaf tensors that the autograd graph under `node` accumulates into (bounded walk,
    newest nodes first: the latest iteration's parameters are found before the chain's tail)."""
    found: set = set()
    seen: dict = {}  # id -> node, held so that no id is reused during the walk
    todo = collections.deque([node] if node is not None else [])
    while todo and len(seen) < _WALK_LIMIT:
        current = todo.popleft()
        if current is None or id(current) in seen:
            continue
        seen[id(current)] = current
        variable = getattr(current, "variable", None)
        if isinstance(variable, torch.Tensor):
            found.add(id(variable))
        todo.extend(n for n, _ in current.next_functions)
    return found


def _fate(pile: Pile, lag: int) -> str:
    if pile.consumed_at is None:
        return "never backpropagated"
    return f"still alive {lag} optimizer steps after the backward that used them"


def _accumulation_fix(where: tuple) -> str | None:
    """For `total += loss` at `where`: the same line without the graph, in the user's names.

    `.detach()` keeps a tensor, so later uses such as `total.item()` still work.
    """
    text = linecache.getline(where[0], where[1]).strip()
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, IndexError, ValueError):
        return None
    if not isinstance(node, ast.AugAssign) or not isinstance(node.op, (ast.Add, ast.Sub)):
        return None
    target = ast.get_source_segment(text, node.target)
    value = ast.get_source_segment(text, node.value)
    if not isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
        value = f"({value})"
    op = "+=" if isinstance(node.op, ast.Add) else "-="
    return (f"Accumulate without the graph: `{target} {op} {value}.detach()` (or `.item()` for a plain "
            "number); run evaluation under `torch.no_grad()`.")
