"""Source edits on a concrete syntax tree (libcst): the engine under `graddoctor fix` and `lint --fix`.

Each rule's `edit.py` builds its change with these tools; `edits.py` finds them, `plan.py`
plans the edits of a report and renders them as diffs.
"""
