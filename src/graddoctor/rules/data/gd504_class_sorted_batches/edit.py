"""GD504: shuffle the training batches: `shuffle=True` on the DataLoader the finding names."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, with_keyword

CODE = "GD504"


def edit(finding: Finding, src: Source) -> Change | None:
    loaders = [c for c in src.calls_at(finding.line, "DataLoader")]
    if len(loaders) != 1:
        return None
    call = loaders[0]
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if "sampler" in keywords or "batch_sampler" in keywords or any(a.star for a in call.args):
        return None  # the sampler decides the order: shuffle=True would be refused by the DataLoader
    replacement = with_keyword(call, "shuffle", "True")
    return Change("shuffle the batches", replacement) if replacement else None
