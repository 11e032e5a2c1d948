"""GD504: shuffle the training batches: `shuffle=True` on the DataLoader the finding names."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.fix.source import Change, Source

CODE = "GD504"


def edit(finding: Finding, src: Source) -> Change | None:
    loaders = [c for c in src.calls_at(finding.line, "DataLoader")]
    if len(loaders) != 1:
        return None
    call = loaders[0]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if "sampler" in keywords or "batch_sampler" in keywords or any(a.star for a in call.args):
        return None  # the sampler decides the order: shuffle=True would be refused by the DataLoader
    true = cst.Name("True")
    if "shuffle" in keywords:
        return Change("shuffle the batches", {keywords["shuffle"].value: true})
    last = call.args[-1]
    # The new argument ends as the last one did (a trailing comma, a line break before the
    # parenthesis); the last one is now separated as the one before it was.
    before_last = call.args[-2].comma if len(call.args) > 1 else cst.MaybeSentinel.DEFAULT
    separator = before_last if isinstance(before_last, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new = cst.Arg(keyword=cst.Name("shuffle"), value=true, comma=last.comma,
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args[:-1]) + [last.with_changes(comma=separator), new]
    return Change("shuffle the batches", {call: call.with_changes(args=args)})
