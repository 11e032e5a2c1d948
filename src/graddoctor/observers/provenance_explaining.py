"""Explaining the user's exception with what deep mode recorded: GD101, GD102/GD110, GD107, GD108, GD112.

A mixin of the provenance observer: it reads the recorder, the tags on the
failing graph, and the session's failed backward call.
"""

from __future__ import annotations

import re

import torch

from graddoctor.finding import Finding, Related
from graddoctor.observers.graph_checks import cut_history
from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.phrases import related_at
from graddoctor.locate import Location
from graddoctor.provenance import carried
from graddoctor.provenance.recorder import SITE
from graddoctor.provenance.records import NUMBER
from graddoctor.rules import make
from graddoctor.session.observer import BackwardEvent

_INPLACE_MESSAGE = re.compile(
    r"\[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\](?:, which is output (?P<out>\d+) of (?P<node>\w+),)? "
    r"is at version (?P<version>\d+); expected version (?P<expected>\d+)"
)


def _loss_tensors(loss) -> list[torch.Tensor]:
    items = loss if isinstance(loss, (list, tuple)) else [loss]
    return [t for t in items if isinstance(t, torch.Tensor)]


class ExplainsErrors:
    """`explain_exception` for the provenance observer."""

    def explain_exception(self, exc: BaseException, where: Location) -> list[Finding]:
        text = str(exc)
        if isinstance(exc, AttributeError):
            return self._explain_number(exc, where)
        if not isinstance(exc, RuntimeError):
            return []
        if "backward through the graph a second time" in text:
            return self._explain_freed(where)
        if "modified by an inplace operation" in text:
            return self._explain_inplace(text, where)
        if "Inference tensors cannot be saved for backward" in text or "inference tensor" in text.lower():
            return self._explain_inference(where)
        if "does not require grad and does not have a grad_fn" in text:
            return self._explain_no_graph(where)
        return []

    def _failed_event(self) -> BackwardEvent | None:
        failed = self.session.failed_backward
        return failed[0] if failed is not None else None

    def _explain_number(self, exc: AttributeError, where: Location) -> list[Finding]:
        obj = getattr(exc, "obj", None)
        if obj is None or getattr(exc, "name", None) not in ("backward", "grad_fn", "requires_grad"):
            return []
        cuts = [self.recorder.cuts[i] for i in sorted(self.recorder.taint_of(obj))]
        numbers = [c for c in cuts if c.kind == NUMBER]
        if not numbers or numbers[-1].location is None:
            return []
        cut = numbers[-1]
        return [
            make(
                "GD101",
                f"The loss was turned into a Python {type(obj).__name__} by `.{cut.op}()` here, so "
                f"`.{exc.name}` fails on it at {where}: numbers have no autograd history.",
                hint="Keep the loss a tensor: call backward() on the tensor, and use `.item()` only "
                "for logging (`print(loss.item())`).",
                related=related_at(where, "backward() called on the number here") + cut.related(),
                evidence={"loss_type": type(obj).__name__, "cut_op": cut.op, "failed_attribute": exc.name},
                **cut.location.shown(),
            )
        ]

    def _explain_no_graph(self, where: Location) -> list[Finding]:
        event = self._failed_event()
        if event is None:
            return []
        found = cut_history(self.cuts(event.loss), event.where, event.step)
        return [found] if found is not None else []

    def _explain_freed(self, where: Location) -> list[Finding]:
        event = self._failed_event()
        if event is None:
            return []
        result = carried.inspect_failure(event.loss, event.index, SITE)
        both = related_at(event.where, "this backward() fails")
        if result.carried is not None:
            tag = result.carried
            file = tag.source or tag.holder.file
            before = tag.where.line if file == tag.holder.file else None
            line = carried.assignment_line(file, tag.name, before)
            assigned = Location(file, line, None, None) if line else None
            # The op that made it, as recorded in its own graph node, is the most exact line;
            # where the name is assigned (the place for `.detach()`) goes along when it differs.
            made = Location(result.site[0], result.site[1], None, result.site[2]) if result.site else None
            at = made or assigned or tag.holder
            extra = []
            if made is not None and assigned is not None and (made.file, made.line) != (assigned.file, assigned.line):
                extra = related_at(assigned, f"`{tag.name}` assigned here")
            cut = carried.detach_fix(tag, file, line)
            return [
                make(
                    "GD107",
                    f"`{tag.name}` is carried from one iteration to the next without `.detach()`: "
                    f"the value assigned here in an earlier iteration still holds that iteration's "
                    f"graph, which backward() at {tag.where} already freed, so this backward() "
                    "tries to go through it again.",
                    hint=f"Cut the carried state at the start of each iteration: "
                    f"`{cut}` (truncated backpropagation through time). Do not add "
                    "retain_graph=True: it keeps every iteration's graph alive.",
                    related=(
                        related_at(tag.where, "backward() here freed that graph in the previous iteration and fails now")
                        if (tag.where.file, tag.where.line) == (event.where.file, event.where.line)
                        else related_at(tag.where, "earlier backward() that freed the graph") + both
                    ) + extra,
                    subjects=[tag.name],
                    evidence={"backward_index": event.index, "carried": tag.name, "error": "graph already freed"},
                    cause={"detach": cut},  # the statement shaped like the observed state; GD107's edit inserts it
                    **at.shown(),
                )
            ]
        previous = result.shared.where if result.shared is not None else (
            self._last_backward.where if self._last_backward is not None and self._last_backward is not event else None
        )
        if previous is None:
            return []
        return [
            make(
                "GD107",
                f"backward() at {event.where} goes through a graph that backward() at {previous} "
                "already freed: the two calls share part of one graph.",
                hint="Add the losses and call backward() once (`(loss_a + loss_b).backward()`); use "
                "`retain_graph=True` on the first call only if the two backward passes must really be separate.",
                related=related_at(previous, "first backward() freed the shared graph here"),
                evidence={"backward_index": event.index, "error": "graph already freed",
                          "shared_graph": result.shared is not None},
                **event.where.shown(),
            )
        ]

    def _explain_inplace(self, text: str, where: Location) -> list[Finding]:
        found = _INPLACE_MESSAGE.search(text)
        if found is None:
            return []
        shape = tuple(int(x) for x in found["shape"].replace(" ", "").split(",") if x)
        expected, version = int(found["expected"]), int(found["version"])
        producer = _stem(found["node"]) if found["node"] else None
        candidates = [
            e for e in self.recorder.edits.inplace
            # PyTorch names the tensor's grad_fn as saved: its maker when an op saved its own
            # output, its grad_fn after the edit when a later op saved it as an input.
            if e.shape == shape and not e.leaf and producer in {_stem(n) for n in (e.producer, e.after) if n}
            and e.version_before <= expected < e.version_after <= version
        ]
        if not candidates:
            # A parameter (or a view of it: a Linear saves `weight.t()`) edited under no_grad by
            # the user's code or by an optimizer's step(): the version counter is shared with
            # its views, so the versions and the element count identify it.
            numel = _numel(shape)
            candidates = [
                e for e in self.recorder.edits.inplace
                if e.leaf and _numel(e.shape) == numel and e.version_before <= expected < e.version_after <= version
            ]
            if candidates:
                return [self._edited_parameter(candidates[-1], shape, expected, version, found["node"])]
        if not candidates:
            return []
        edit = candidates[-1]
        saver = self._saving_node()
        saved_by = f"`{type(saver).__name__}`" if saver is not None else f"the op that made it (`{found['node']}`)"
        event = self._failed_event()
        related = list(edit.chain[1:2] and related_at(edit.chain[1], "called from here"))
        site = saver.metadata.get(SITE) if saver is not None else None
        if site is not None:
            saved_at = Location(site[0], site[1], None, site[2])
            saved_by += f" at {saved_at}"
            related = related_at(saved_at, f"saved for backward here by {type(saver).__name__}") + related
        if event is not None:
            related += related_at(event.where, "backward() fails here")
        return [
            make(
                "GD108",
                f"`{edit.op}` here changed a tensor of shape {list(shape)} (output {found['out']} of "
                f"{found['node']}) in place, from version {edit.version_before} to {edit.version_after}, "
                f"after it was saved for the backward pass by {saved_by}; backward() needs the "
                "original values and refuses.",
                related=related,
                step=edit.step,
                **edit.location.shown(),
            )
        ]

    def _edited_parameter(self, edit, shape: tuple, expected: int, version: int, node: str | None) -> Finding:
        """GD108 when the edited tensor is a parameter: an optimizer step or a user's no_grad edit."""
        index = ModelIndex(self.session.models())
        param = index.params.get(edit.param_id) if edit.param_id is not None else None
        name = f"`{index.name(param)}`" if param is not None else f"a parameter of shape {list(edit.shape)}"
        saver = self._saving_node()
        site = saver.metadata.get(SITE) if saver is not None else None
        related: list[Related] = []
        saved = ""
        if site is not None:
            saved_at = Location(site[0], site[1], None, site[2])
            saved = f" (by `{type(saver).__name__}` at {saved_at})"
            related += related_at(saved_at, f"the forward pass saved {name} here")
        event = self._failed_event()
        backward = f"backward() at {event.where}" if event is not None else "backward()"
        if event is not None:
            related += related_at(event.where, "backward() fails here")
        if edit.optimizer is not None:
            message = (
                f"`{edit.location.source.strip() or 'step()'}` here ({edit.optimizer}) updated {name} in place "
                f"(version {edit.version_before} to {edit.version_after}) after a forward pass had saved it for "
                f"the backward pass{saved}; {backward} needs the values of that forward pass and refuses."
            )
            hint = (
                "Run every backward() that goes through these parameters before this step() (for a GAN: "
                "compute and backpropagate the generator loss before the discriminator's step, or recompute "
                "the discriminator's output on the fake batch after its step), and step the optimizers after."
            )
        else:
            message = (
                f"`{edit.op}` here changed {name} in place under no_grad (version {edit.version_before} to "
                f"{edit.version_after}) after a forward pass had saved it for the backward pass{saved}; "
                f"{backward} needs its original values and refuses."
            )
            hint = ("Edit the parameter after backward() (after optimizer.step()) or before the forward pass, "
                    "not between the two.")
        return make("GD108", message, hint=hint, related=related, subjects=[name.strip("`")] if param is not None else [],
                    step=edit.step, **edit.location.shown())

    def _saving_node(self):
        """The graph node whose saved tensor was edited: its unpacking fails the same way."""
        event = self._failed_event()
        if event is None:
            return None
        roots = [t.grad_fn for t in _loss_tensors(event.loss) if t.grad_fn is not None]
        seen, stack = set(roots), list(roots)
        while stack and len(seen) < 100_000:
            node = stack.pop()
            for attr in dir(node):
                if attr.startswith("_saved_"):
                    try:
                        getattr(node, attr)
                    except RuntimeError as err:  # torch's one failure here (freed, or edited in place)
                        if "inplace" in str(err):
                            return node
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append(child)
        return None

    def _explain_inference(self, where: Location) -> list[Finding]:
        failure = self.recorder.inference.failure
        if failure is None or failure[0] is None or failure[0].location is None:
            return []
        birth, used = failure
        related = related_at(used, "used here where autograd must save it") + related_at(
            birth.region_entry, "inference mode entered here"
        )
        return [
            make(
                "GD112",
                f"This tensor (shape {list(birth.shape)}) was created under torch.inference_mode(); "
                f"at {used} it is used in a computation autograd records, which must save it for "
                "backward, and inference tensors cannot be saved.",
                related=related,
                **birth.location.shown(),
            )
        ]



def _numel(shape: tuple) -> int:
    out = 1
    for n in shape:
        out *= n
    return out


def _stem(node: str) -> str:
    return re.sub(r"Backward\d*$", "", node)
