"""The edits on source alone (no run): written in the user's names, formatting kept, and not made when the
code does not say plainly what to write (near misses)."""

from __future__ import annotations

import re
import textwrap

import pytest

from graddoctor.editing.edits import codes, registry
from graddoctor.editing.plan import line_map, plan
from graddoctor.rules import get_rule, make


def _plan(tmp_path, source: str, *found: tuple[str, int]):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    findings = [make(code, "observed", file=str(path), line=line) for code, line in found]
    return plan(findings, str(tmp_path)), path


def _after(tmp_path, source: str, *found: tuple[str, int]) -> str | None:
    p, path = _plan(tmp_path, source, *found)
    return p.files[str(path.resolve())].after if p.files else None


def test_every_edit_module_is_named_after_a_catalogue_code():
    assert codes() == sorted(registry())
    for code in codes():
        get_rule(code)  # raises for a code the catalogue does not have


def test_zero_grad_uses_the_optimizer_that_a_scaler_steps(tmp_path):
    after = _after(tmp_path, """\
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = crit(net(x), y)
            scaler.scale(loss).backward()  # scaled
            scaler.step(opt_g)
            scaler.update()
        """, ("GD201", 5))
    assert after.splitlines()[3:5] == ["    opt_g.zero_grad()", "    scaler.scale(loss).backward()  # scaled"]


def test_step_is_not_guessed_between_two_optimizers(tmp_path):
    source = """\
        opt_d = torch.optim.Adam(disc.parameters())
        opt_g = torch.optim.Adam(gen.parameters())
        for x in loader:
            loss = disc(gen(z)).mean()
            loss.backward()
        """
    assert _after(tmp_path, source, ("GD203", 5)) is None


def test_step_uses_the_one_optimizer_built(tmp_path):
    after = _after(tmp_path, """\
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
        for x, y in loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
        """, ("GD203", 4))
    assert after.splitlines()[-1] == "    opt.step()"


def test_shuffle_added_to_a_multi_line_call_keeps_its_layout(tmp_path):
    after = _after(tmp_path, """\
        loader = DataLoader(
            dataset,
            batch_size=16,
        )
        """, ("GD504", 1))
    assert after == "loader = DataLoader(\n    dataset,\n    batch_size=16,\n    shuffle=True,\n)\n"


def test_shuffle_false_becomes_true_and_a_sampler_gets_no_edit(tmp_path):
    assert _after(tmp_path, "dl = DataLoader(ds, shuffle=False)  # sorted\n", ("GD504", 1)) == \
        "dl = DataLoader(ds, shuffle=True)  # sorted\n"
    assert _after(tmp_path, "dl = DataLoader(ds, sampler=SequentialSampler(ds))\n", ("GD504", 1)) is None


def test_repeated_block_built_inline_is_built_n_times(tmp_path):
    after = _after(tmp_path, "layers = nn.Sequential(*[nn.Linear(8, 8)] * 3)\n", ("GD502", 1))
    assert after == "layers = nn.Sequential(*[nn.Linear(8, 8) for _ in range(3)])\n"


def test_tensor_attribute_becomes_a_parameter_in_the_files_spelling(tmp_path):
    after = _after(tmp_path, """\
        import torch

        class Scale(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.ones(4, requires_grad=True)
        """, ("GD105", 6))
    assert "        self.w = torch.nn.Parameter(torch.ones(4))" in after.splitlines()


@pytest.mark.parametrize("line", [
    "total += loss.detach()\n",  # already without graph
    "total += loss.item()\n",
    "total = total + loss\n",  # not an accumulation the edit knows
])
def test_accumulation_near_misses_get_no_edit(tmp_path, line):
    assert _after(tmp_path, line, ("GD207", 1)) is None


def test_a_loss_the_run_saw_kept_is_detached_where_the_loop_hands_it_to_a_meter(tmp_path):
    # GD207 at the line that made the loss (the run saw it alive two steps later): the one later
    # call in the loop that stores it gets the detached tensor, the backward keeps the graph
    after = _after(tmp_path, """\
        for epoch in range(epochs):
            meter = AverageMeter()
            for x, y in loader:
                loss = criterion(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                meter.update([loss], n=x.size(0))
        """, ("GD207", 4))
    assert after.splitlines()[5:8] == ["        loss.backward()", "        optimizer.step()",
                                       "        meter.update([loss.detach()], n=x.size(0))"]


@pytest.mark.parametrize("keeping", [
    "meter.update([loss])\n            history.append(loss)",  # two places keep it: which one matters is not plain
    "scaler.scale(loss)",  # a call that does not store what it is given
    "print(loss)",
])
def test_a_kept_loss_with_no_single_keeping_call_gets_no_edit(tmp_path, keeping):
    source = f"""\
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            {keeping}
        """
    assert _after(tmp_path, source, ("GD207", 2)) is None


def test_a_number_kept_in_a_name_and_rewrapped_later_is_kept_a_tensor_throughout(tmp_path):
    # "backward() complained that the loss does not require grad, so:" -- the .item() and the
    # re-wrap go together; the same name in another function is not touched
    after = _after(tmp_path, """\
        def compute_loss(logits, labels):
            loss = criterion(logits, labels)
            loss_value = loss.item()
            return torch.tensor(loss_value, requires_grad=True)

        def log(loss_value):
            return torch.tensor(loss_value)
        """, ("GD101", 3))
    assert after.splitlines()[2:4] == ["    loss_value = loss", "    return loss_value"]
    assert after.splitlines()[6] == "    return torch.tensor(loss_value)"


def test_two_numbers_on_one_line_are_not_guessed(tmp_path):
    assert _after(tmp_path, "acc = float(correct) / float(total)\n", ("GD101", 1)) is None


def test_two_edits_of_one_file_apply_together(tmp_path):
    source = """\
        total = 0
        for x, y in loader:
            loss = crit(model(x), y)
            loss.backward()
            optimizer.step()  # no zero_grad
            total += loss
        """
    p, path = _plan(tmp_path, source, ("GD201", 5), ("GD207", 6))
    after = p.files[str(path.resolve())].after
    assert after.splitlines()[3:7] == ["    optimizer.zero_grad()", "    loss.backward()",
                                       "    optimizer.step()  # no zero_grad", "    total += loss.detach()"]
    assert [f.finding.code for f in p.fixes] == ["GD201", "GD207"]
    assert line_map(p.files[str(path.resolve())].before, after)[5] == 6  # the step line, one line down


def test_a_file_outside_the_root_gets_no_edit(tmp_path):
    (tmp_path / "project").mkdir()
    lib = tmp_path / "trainer.py"
    lib.write_text("for x in xs:\n    f(x).backward()\n    opt.step()\n")
    p = plan([make("GD201", "observed", file=str(lib), line=3)], str(tmp_path / "project"))
    assert not p.fixes


def test_lint_json_carries_the_edit_when_asked_and_text_stays_as_it_was(tmp_path, monkeypatch, capsys):
    import json

    from graddoctor.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(
        "import torch\n\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n    loss = crit(model(x), y)\n    loss.backward()\n    opt.step()\n")
    # Planning edits costs a parse per file: plain JSON (pre-commit, CI) does not pay for it.
    assert main(["lint", "--format", "json", "train.py"]) == 1
    plain = next(f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "GD201")
    assert "fix" not in plain
    assert main(["lint", "--format", "json", "--diff", "train.py"]) == 1
    finding = next(f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "GD201")
    assert finding["fix"] == {"diff": finding["fix"]["diff"], "verified": None, "loss_before": None,
                              "loss_after": None, "new_findings": []}
    assert "+    opt.zero_grad()\n     loss.backward()\n" in finding["fix"]["diff"]
    main(["lint", "train.py"])
    assert "edit:" not in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["fix", "train.py"], ["lint", "--fix", "train.py"]])
def test_without_libcst_editing_is_a_usage_error(tmp_path, monkeypatch, capsys, argv):
    import sys

    from graddoctor.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("x = 1\n")
    monkeypatch.setitem(sys.modules, "libcst", None)  # import libcst now raises ImportError
    assert main(argv) == 2
    from graddoctor.extras import install_command

    err = capsys.readouterr().err.strip()
    assert err.endswith(f"libcst is needed to edit code: {install_command('fix')}"), err
    assert err.count("\n") == 0  # one line
    assert (tmp_path / "train.py").read_text() == "x = 1\n"


def test_docs_list_exactly_the_codes_with_an_edit():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "fix.md").read_text()
    table = page.split("## Codes with an edit", 1)[1]
    listed = sorted(set(re.findall(r"^\| \[(GD\d{3})\]", table, re.M)))
    assert listed == codes()


def test_the_verification_copy_holds_the_edit_and_links_everything_else(tmp_path):
    import os
    import shutil

    from graddoctor.fix.verify import overlay

    (tmp_path / "pkg").mkdir()
    (tmp_path / "data.csv").write_text("1,2\n")
    (tmp_path / "pkg" / "other.py").write_text("X = 1\n")
    p, path = _plan(tmp_path, "for x in xs:\n    f(x).backward()\n    opt.step()\n", ("GD201", 3))
    moved = tmp_path / "pkg" / "loop.py"
    path.rename(moved)
    p.files = {str(moved): p.files.popitem()[1]}
    copy = overlay(str(tmp_path), p.files)
    try:
        assert (open(os.path.join(copy, "pkg", "loop.py")).read()
                == "for x in xs:\n    opt.zero_grad()\n    f(x).backward()\n    opt.step()\n")
        assert os.path.islink(os.path.join(copy, "data.csv")) and os.path.islink(os.path.join(copy, "pkg", "other.py"))
        assert not os.path.islink(os.path.join(copy, "pkg"))
        assert moved.read_text() == "for x in xs:\n    f(x).backward()\n    opt.step()\n"  # the user's file as it was
    finally:
        shutil.rmtree(copy)


def test_a_virtual_environment_inside_the_project_gets_no_edit(tmp_path):
    lib = tmp_path / ".venv" / "lib" / "python3.12" / "site-packages" / "trainer"
    lib.mkdir(parents=True)
    (lib / "loop.py").write_text("for x in xs:\n    f(x).backward()\n    opt.step()\n")
    (tmp_path / "train.py").write_text("import trainer\n")
    p = plan([make("GD201", "observed", file=str(lib / "loop.py"), line=3)], str(tmp_path))
    assert not p.fixes


def test_step_under_a_grad_scaler_is_the_scalers_step_and_update(tmp_path):
    after = _after(tmp_path, """\
        optimizer = torch.optim.AdamW(model.parameters())
        scaler = torch.amp.GradScaler("cuda")
        for x, y in loader:
            optimizer.zero_grad()
            scaler.scale(loss_fn(model(x), y)).backward()
        """, ("GD203", 5))
    assert after.splitlines()[-2:] == ["    scaler.step(optimizer)", "    scaler.update()"]


def _accumulation(code: str, backward_line: int, step_line: int, count: int = 4):
    from graddoctor.finding import Related

    return make(code, "observed", line=backward_line, related=[Related(None, step_line, "step")],
                evidence={"backwards_per_step": count})


def test_accumulated_loss_is_divided_by_the_name_the_step_guard_uses(tmp_path):
    source = """\
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        """
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    finding = _accumulation("GD212", 3, 5).with_(file=str(path))
    after = plan([finding], str(tmp_path)).files[str(path.resolve())].after
    assert after.splitlines()[2] == "    (loss / accum_steps).backward()"


def test_a_scaled_accumulated_loss_is_divided_inside_the_scale(tmp_path):
    source = """\
        for step, batch in enumerate(loader):
            loss = model(**batch).loss
            scaler.scale(loss).backward()
            if step % 8 == 7:
                scaler.step(optimizer)
        """
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    finding = _accumulation("GD212", 3, 5, count=8).with_(file=str(path))
    after = plan([finding], str(tmp_path)).files[str(path.resolve())].after
    assert after.splitlines()[2] == "    scaler.scale(loss / 8).backward()"


def test_an_already_divided_loss_is_left_alone(tmp_path):
    source = """\
        for i, (x, y) in enumerate(loader):
            (criterion(model(x), y) / accum).backward()
            if (i + 1) % accum == 0:
                optimizer.step()
        """
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    finding = _accumulation("GD212", 2, 4).with_(file=str(path))
    assert not plan([finding], str(tmp_path)).files


def _finding(tmp_path, source: str, code: str, line: int, **fields):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    return path, make(code, "observed", file=str(path), line=line, **fields)


def _after_finding(tmp_path, source: str, code: str, line: int, **fields) -> str | None:
    path, finding = _finding(tmp_path, source, code, line, **fields)
    p = plan([finding], str(tmp_path))
    return p.files[str(path.resolve())].after if p.files else None


_SOFTMAX_MODULE = """\
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(10, 4)
            self.softmax = nn.Softmax(dim=1)

        def forward(self, x):
            logits = self.fc(x)
            return self.softmax(logits)
    """


def test_softmax_module_attribute_is_not_taken_for_the_tensor_method(tmp_path):
    # The issue's `return self.softmax(logits)` -> `return self`: the module call's argument is the scores.
    after = _after_finding(tmp_path, _SOFTMAX_MODULE, "GD501", 9, evidence={"loss": "cross_entropy"})
    assert after.splitlines()[8] == "        return logits"


def test_softmax_before_nll_loss_becomes_log_softmax(tmp_path):
    after = _after_finding(tmp_path, _SOFTMAX_MODULE, "GD501", 9, evidence={"loss": "nll_loss"})
    assert after.splitlines()[4] == "        self.softmax = nn.LogSoftmax(dim=1)"
    assert after.splitlines()[8] == "        return self.softmax(logits)"
    functional = _after_finding(tmp_path, "out = F.softmax(model(x), dim=1)\n", "GD501", 1, evidence={"loss": "nll_loss"})
    assert functional == "out = F.log_softmax(model(x), dim=1)\n"


def test_softmax_edit_needs_to_know_the_loss(tmp_path):
    assert _after_finding(tmp_path, "out = F.softmax(model(x), dim=1)\n", "GD501", 1) is None


def test_a_callable_attribute_named_softmax_that_is_not_a_softmax_module_gets_no_edit(tmp_path):
    source = _SOFTMAX_MODULE.replace("nn.Softmax(dim=1)", "Temperature(0.5)")
    assert _after_finding(tmp_path, source, "GD501", 9, evidence={"loss": "cross_entropy"}) is None


_STATE_NONE_FIRST = """\
    h_state = None
    for x, y in loader:
        # run the chunk from the carried state
        out, h_state = rnn(x, h_state)
        loss = crit(head(out), y)
        loss.backward()
        opt.step()
    """


def test_detach_goes_where_the_state_is_produced_not_at_the_loop_top(tmp_path):
    after = _after_finding(tmp_path, _STATE_NONE_FIRST, "GD107", 6, cause={"detach": "h_state = h_state.detach()"})
    lines = after.splitlines()
    assert lines[1:5] == ["for x, y in loader:", "    # run the chunk from the carried state",
                          "    out, h_state = rnn(x, h_state)", "    h_state = h_state.detach()"]


def test_detach_is_not_placed_where_the_state_is_still_read_by_this_step(tmp_path):
    source = _STATE_NONE_FIRST.replace("crit(head(out), y)", "crit(head(h_state[-1]), y)")
    assert _after_finding(tmp_path, source, "GD107", 6, cause={"detach": "h_state = h_state.detach()"}) is None


_ACCUMULATION = """\
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for i, (x, y) in enumerate(loader):
            loss = crit(model(x), y) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
    """


def test_accumulation_that_never_steps_also_steps_at_the_last_batch(tmp_path):
    after = _after_finding(tmp_path, _ACCUMULATION, "GD203", 5)
    assert after.count("opt.step()") == 1
    assert "        if (i + 1) % accum == 0 or i + 1 == len(loader):" in after.splitlines()


def test_no_second_step_where_the_loop_steps_in_an_else(tmp_path):
    source = """\
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = crit(model(x), y)
            loss.backward()
            if scaler is not None:
                scaler.update()
            else:
                opt.step()
        """
    assert _after_finding(tmp_path, source, "GD203", 4) is None


def test_no_edit_on_an_info_finding(tmp_path):
    from graddoctor.finding import Severity

    source = "loader = DataLoader(dataset, batch_size=16)\n"
    assert _after_finding(tmp_path, source, "GD504", 1, severity=Severity.INFO) is None
    assert _after_finding(tmp_path, source, "GD504", 1) is not None


def test_a_moved_statement_keeps_the_comment_above_it(tmp_path):
    after = _after(tmp_path, """\
        for x, y in loader:
            loss = crit(model(x), y)
            # keep the update small: this model diverges without it
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            loss.backward()
            opt.step()
        """, ("GD206", 4))
    assert after.splitlines()[2:5] == ["    loss.backward()", "    # keep the update small: this model diverges without it",
                                       "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"]


def test_an_inserted_statement_goes_above_the_comment_of_the_statement_it_precedes(tmp_path):
    after = _after(tmp_path, """\
        for x, y in loader:
            loss = crit(model(x), y)

            # backpropagate the batch loss
            loss.backward()
            opt.step()
        """, ("GD201", 6))
    assert after.splitlines()[2:6] == ["", "    opt.zero_grad()", "    # backpropagate the batch loss", "    loss.backward()"]


_LSTM_WITH_STATE = """\
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 64)
            self.head = nn.Linear(64, 3)

        def forward(self, x):
            h0 = torch.zeros(1, x.size(1), 64)
            c0 = torch.zeros(1, x.shape[1], 64)
            out, _ = self.lstm(x, (h0, c0))
            return self.head(out[:, -1])
    """


def test_batch_first_also_resizes_the_initial_state(tmp_path):
    # The "Expected hidden[0] size (1, 50, 64)": batch_first alone leaves h0 sized by the time steps.
    after = _after_finding(tmp_path, _LSTM_WITH_STATE, "GD506", 4).splitlines()
    assert after[3] == "        self.lstm = nn.LSTM(8, 64, batch_first=True)"
    assert after[7:9] == ["        h0 = torch.zeros(1, x.size(0), 64)", "        c0 = torch.zeros(1, x.shape[0], 64)"]


@pytest.mark.parametrize("old_layout", ["out, _ = self.lstm(x.transpose(0, 1), (h0, c0))",
                                        "out, _ = self.lstm(x, (h0, c0)); out = out[-1]"])
def test_batch_first_is_not_added_where_the_code_was_written_for_the_old_layout(tmp_path, old_layout):
    source = _LSTM_WITH_STATE.replace("out, _ = self.lstm(x, (h0, c0))", old_layout)
    assert _after_finding(tmp_path, source, "GD506", 4) is None


def test_per_sample_loss_is_reduced_to_its_mean_before_backward(tmp_path):
    source = """\
        criterion = nn.CrossEntropyLoss(reduction="none")
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
        """
    assert _after_finding(tmp_path, source, "GD103", 4).splitlines()[3] == "    loss.mean().backward()"
    # Near miss: the tensor is the model's output, not a loss: averaging it is no fix.
    assert _after_finding(tmp_path, source.replace("criterion(model(x), y)", "model(x)"), "GD103", 4) is None


def test_log_of_softmax_becomes_log_softmax(tmp_path):
    after = _after_finding(tmp_path, "logp = torch.log(F.softmax(logits, dim=-1))\n", "GD301", 1)
    assert after == "logp = F.log_softmax(logits, dim=-1)\n"
    after = _after_finding(tmp_path, "logp = logits.softmax(dim=1).log()\n", "GD301", 1)
    assert after == "logp = logits.log_softmax(dim=1)\n"
    # Near miss: a log of a sigmoid elsewhere on the line is not a softmax.
    assert _after_finding(tmp_path, "loss = -(y * torch.log(p)).mean()\n", "GD301", 1) is None


def test_edits_of_one_file_are_planned_on_one_parse_and_applied_together(tmp_path):
    source = """\
        # data
        loader = DataLoader(dataset, batch_size=16)


        def train_a(model, opt):
            for x, y in loader:
                loss = crit(model(x), y)
                loss.backward()
                opt.step()


        def train_b(model, opt):
            for x, y in loader:
                # the batch loss
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
        """
    p, path = _plan(tmp_path, source, ("GD504", 2), ("GD201", 9), ("GD201", 17))
    assert len(p.fixes) == 3
    after = p.files[str(path.resolve())].after
    expected = textwrap.dedent(source).replace("batch_size=16)", "batch_size=16, shuffle=True)").replace(
        "        loss.backward()", "        opt.zero_grad()\n        loss.backward()")
    assert after == expected
    # each finding's own diff holds its edit alone
    added = [[x for x in f.diff.splitlines() if x.startswith("+") and not x.startswith("+++")] for f in p.fixes]
    assert added == [["+loader = DataLoader(dataset, batch_size=16, shuffle=True)"], ["+        opt.zero_grad()"],
                     ["+        opt.zero_grad()"]]


_DEAD_RELU = """\
    class Regressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(32, 1)
            self.final = nn.ReLU()  # "predictions are never negative"

        def forward(self, x):
            return self.final(self.out(x))
    """


def test_dead_output_relu_is_dropped_from_the_forward(tmp_path):
    after = _after_finding(tmp_path, _DEAD_RELU, "GD505", 8, evidence={"first_constant": "final", "first_constant_line": 5})
    assert after.splitlines()[7] == "        return self.out(x)"
    # Near misses: no layer named by the run, or the constant layer is not a ReLU applied last.
    assert _after_finding(tmp_path, _DEAD_RELU, "GD505", 8) is None
    hidden = _DEAD_RELU.replace("return self.final(self.out(x))", "return self.out(self.final(x))")
    assert _after_finding(tmp_path, hidden, "GD505", 8, evidence={"first_constant": "final", "first_constant_line": 5}) is None


def test_a_reentrant_checkpoint_is_told_not_to_reenter(tmp_path):
    after = _after(tmp_path, """\
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=True)
        """, ("GD113", 2))
    assert "h = checkpoint(block, h, use_reentrant=False)" in after
    added = _after(tmp_path, """\
        out = checkpoint_sequential(stages, 2, x)
        """, ("GD113", 1))
    assert "checkpoint_sequential(stages, 2, x, use_reentrant=False)" in added


def test_hugging_face_checkpointing_gets_its_kwargs_unless_it_passes_some(tmp_path):
    after = _after(tmp_path, "model.gradient_checkpointing_enable()\n", ("GD113", 1))
    assert 'model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})' in after
    # kwargs of its own (other settings, or built elsewhere): not rewritten by guess
    assert _after(tmp_path, "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=ckpt)\n", ("GD113", 1)) is None
    assert _after(tmp_path, "h = checkpoint(block, h, **options)\n", ("GD113", 1)) is None


_DETACHED_BRANCH = """\
    import torch


    def forward(self, v1, v2):
        p1, p2 = self.predictor(self.online(torch.cat([v1, v2]))).detach().chunk(2)
        return self.loss_fn(p1, v2) + self.loss_fn(p2, v1)
    """


def test_the_detach_on_the_cut_line_is_dropped(tmp_path):
    after = _after_finding(tmp_path, _DETACHED_BRANCH, "GD102", 5)
    assert after.splitlines()[4] == "    p1, p2 = self.predictor(self.online(torch.cat([v1, v2]))).chunk(2)"
    after = _after_finding(tmp_path, "pred = model(x).data\nloss = crit(pred, y)\n", "GD102", 1)
    assert after.splitlines()[0] == "pred = model(x)"


def test_a_list_of_tensors_rewrapped_by_torch_tensor_is_stacked(tmp_path):
    after = _after_finding(tmp_path, "scores = torch.tensor([model(q) for q in items])\n", "GD102", 1)
    assert after == "scores = torch.stack([model(q) for q in items])\n"


@pytest.mark.parametrize("line", [
    "pred = model(x).argmax(1).float()",  # a non-differentiable op: its fix is another loss
    "a, b = f(x).detach(), g(x).detach()",  # two cuts: which one was meant is not guessed
    "w.data = model(x).detach()",  # a write through .data, and a second cut
    "scores = torch.tensor([model(q) for q in items], dtype=torch.float64)",  # a choice made with the copy
    "model(x).detach().backward()",  # not where a value is computed
    "pred_np = out.detach().cpu().numpy()",  # the numpy copy cuts the graph too: its fix is a torch metric
])
def test_a_cut_that_is_not_plainly_one_detach_gets_no_edit(tmp_path, line):
    assert _after_finding(tmp_path, line + "\n", "GD102", 1) is None


@pytest.mark.parametrize("source,backward,expected", [
    ('loss = crit(logits, y)\nloss = loss * mask\nloss.backward()\n', 3, "loss.mean().backward()"),
    ('out = info_nce(z1, z2)\nout["loss"].backward()\n', 2, 'out["loss"].mean().backward()'),
    ("outputs = model(ids)\noutputs.loss.backward()\n", 2, "outputs.loss.mean().backward()"),
])
def test_per_sample_loss_kept_in_a_masked_name_or_a_helpers_dict_is_averaged(tmp_path, source, backward, expected):
    assert _after_finding(tmp_path, source, "GD103", backward).splitlines()[backward - 1] == expected


@pytest.mark.parametrize("source,backward", [
    ('out = model(x)\nout["logits"].backward()\n', 2),  # not a loss
    ('out = model(x)\nout["losses"].backward()\n', 2),  # a collection of losses: summed or averaged?
    ("loss = crit(logits, y)\nloss = model(x)\nloss.backward()\n", 3),  # reassigned from something else
])
def test_a_non_scalar_that_is_not_plainly_a_loss_is_not_averaged(tmp_path, source, backward):
    assert _after_finding(tmp_path, source, "GD103", backward) is None


_EXPERTS = """\
    from torch import nn
    class MoE(nn.Module):
        def __init__(self, names):
            super().__init__()
            experts = {}
            for name in names:
                experts[name] = nn.Linear(8, 8)
            self.experts = experts
    """


def test_a_dict_of_layers_built_in_a_local_is_registered_where_it_is_assigned(tmp_path):
    after = _after_finding(tmp_path, _EXPERTS, "GD105", 8)
    assert after.splitlines()[7] == "        self.experts = nn.ModuleDict(experts)"
    # Near misses: a container passed in (what it holds is not in this file), a local assigned twice.
    passed = _EXPERTS.replace("experts = {}\n", "").replace("for name in names:\n", "").replace(
        "            experts[name] = nn.Linear(8, 8)\n", "").replace("(self, names)", "(self, experts)")
    assert _after_finding(tmp_path, passed, "GD105", passed.count("\n")) is None
    twice = _EXPERTS.replace("        self.experts = experts", "        experts = dict(experts)\n        self.experts = experts")
    assert _after_finding(tmp_path, twice, "GD105", 9) is None


@pytest.mark.parametrize("line,expected", [
    ("gate *= feature_mask", "gate = gate * feature_mask"),
    ("h += a + b", "h = h + (a + b)"),
    ("out.add_(identity)", "out = out.add(identity)"),
    ("x.relu_()", "x = x.relu()"),
])
def test_an_in_place_change_of_a_saved_tensor_is_made_out_of_place(tmp_path, line, expected):
    assert _after_finding(tmp_path, line + "\n", "GD108", 1) == expected + "\n"


@pytest.mark.parametrize("line", ["x[mask] = 0", "self.state += delta", "x.fill_diagonal_(0)", "x.copy_(y)"])
def test_an_in_place_write_others_may_see_gets_no_out_of_place_edit(tmp_path, line):
    assert _after_finding(tmp_path, line + "\n", "GD108", 1) is None


_MANUAL_STEP = """\
    import torch


    def step(params, lr):
        for param in params:
            param -= lr * param.grad
            param.grad.zero_()
    """


def test_a_manual_update_of_a_leaf_runs_under_no_grad(tmp_path):
    after = _after_finding(tmp_path, _MANUAL_STEP, "GD109", 6)
    assert after.splitlines()[5:8] == ["        with torch.no_grad():", "            param -= lr * param.grad",
                                       "        param.grad.zero_()"]


@pytest.mark.parametrize("source,line", [
    (_MANUAL_STEP.replace("param -= lr * param.grad", "param.data -= lr * param.grad"), 6),  # through .data
    ("import torch\n\n\nclass M:\n    def forward(self, x):\n        self.w.mul_(x)\n", 6),  # part of the model's computation
    (_MANUAL_STEP.replace("import torch", "from torch import no_grad"), 6),  # `torch` is not a name in the file
])
def test_an_in_place_op_that_is_not_a_plain_update_gets_no_no_grad(tmp_path, source, line):
    assert _after_finding(tmp_path, source, "GD109", line) is None


_DECORATED_STEP = """\
    import torch


    # one optimisation step
    @torch.no_grad()
    def train_step(model, opt, x, y):
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
    """


def test_a_no_grad_decorator_on_the_function_that_builds_the_loss_is_removed(tmp_path):
    after = _after_finding(tmp_path, _DECORATED_STEP, "GD110", 5)
    assert after.splitlines()[2:6] == ["", "# one optimisation step", "def train_step(model, opt, x, y):",
                                       "    loss = crit(model(x), y)"]
    inference = _DECORATED_STEP.replace("@torch.no_grad()", "@torch.inference_mode()")
    assert "inference_mode" not in _after_finding(tmp_path, inference, "GD110", 5)


@pytest.mark.parametrize("decorator", ["@torch.set_grad_enabled(False)", "@torch.inference_mode(mode=True)",
                                       "@functools.cache"])
def test_a_decorator_that_is_not_plainly_grad_mode_off_is_kept(tmp_path, decorator):
    assert _after_finding(tmp_path, _DECORATED_STEP.replace("@torch.no_grad()", decorator), "GD110", 5) is None


_CACHED = """\
    import torch

    with torch.inference_mode():
        features = encoder(raw)

    for x, y in batches(features):
        loss = crit(head(x), y)
        loss.backward()
    """


def test_cached_features_are_made_under_no_grad_instead_of_inference_mode(tmp_path):
    after = _after_finding(tmp_path, _CACHED, "GD112", 7)
    assert after.splitlines()[2] == "with torch.no_grad():"
    # Near miss: two places enter inference mode; which one made the tensor is not guessed.
    twice = _CACHED + "\n@torch.inference_mode()\ndef predict(x):\n    return head(x)\n"
    assert _after_finding(tmp_path, twice, "GD112", 7) is None


_CLIP_IN_IF = """\
    for x, y in loader:
        optimizer.zero_grad()
        if grad_clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    """


def test_a_clip_under_its_config_condition_moves_with_the_condition(tmp_path):
    after = _after_finding(tmp_path, _CLIP_IN_IF, "GD206", 4)
    assert after.splitlines()[1:7] == ["    optimizer.zero_grad()", "    loss = criterion(model(x), y)", "    loss.backward()",
                                       "    if grad_clip > 0:",
                                       "        nn.utils.clip_grad_norm_(model.parameters(), grad_clip)",
                                       "    optimizer.step()"]


def test_a_clip_under_a_condition_on_the_step_itself_gets_no_edit(tmp_path):
    # Moved past `loss = ...`, `if loss > 10` would read another loss than it did.
    source = _CLIP_IN_IF.replace("if grad_clip > 0:", "if loss > 10:")
    assert _after_finding(tmp_path, source, "GD206", 4) is None


_ONE_EPOCH = """\
    def train_one_epoch(epoch):
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
        print(epoch, loss.item())
    """


def test_an_epoch_scheduler_stepped_per_batch_in_a_one_epoch_function_moves_after_its_loop(tmp_path):
    after = _after_finding(tmp_path, _ONE_EPOCH, "GD205", 6)
    assert after.splitlines()[4:7] == ["        optimizer.step()", "    scheduler.step()", "    print(epoch, loss.item())"]


def test_a_batch_loop_in_a_function_that_may_not_be_one_epoch_keeps_its_scheduler(tmp_path):
    # `def train(...)` may run every epoch in that loop (an iteration-count loop): where an epoch ends is not known.
    assert _after_finding(tmp_path, _ONE_EPOCH.replace("train_one_epoch", "train"), "GD205", 6) is None


_SEQUENTIAL_SOFTMAX = """\
    model = nn.Sequential(
        nn.Linear(20, 32),
        nn.ReLU(),
        nn.Linear(32, 4),
        nn.Softmax(dim=1),
    )
    """


def test_a_softmax_that_ends_a_sequential_is_removed_before_cross_entropy(tmp_path):
    after = _after_finding(tmp_path, _SEQUENTIAL_SOFTMAX, "GD501", 5, evidence={"loss": "cross_entropy"})
    assert after.splitlines()[3:5] == ["    nn.Linear(32, 4),", ")"]
    after = _after_finding(tmp_path, _SEQUENTIAL_SOFTMAX, "GD501", 5, evidence={"loss": "nll_loss"})
    assert after.splitlines()[4] == "    nn.LogSoftmax(dim=1),"


def test_a_softmax_inside_a_sequential_is_not_removed(tmp_path):
    # Not the last layer: what follows it was built for probabilities.
    inside = _SEQUENTIAL_SOFTMAX.replace("nn.Softmax(dim=1),", "nn.Softmax(dim=1),\n    Calibrate(),")
    assert _after_finding(tmp_path, inside, "GD501", 5, evidence={"loss": "cross_entropy"}) is None
    # A sigmoid layer before CrossEntropyLoss is another mistake than the one the finding names.
    sigmoid = _SEQUENTIAL_SOFTMAX.replace("nn.Softmax(dim=1)", "nn.Sigmoid()")
    assert _after_finding(tmp_path, sigmoid, "GD501", 5, evidence={"loss": "cross_entropy"}) is None


_SEQUENTIAL_RELU = """\
    class AnomalyNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Sequential(nn.Linear(5, 32), nn.ReLU())
            self.output = nn.Sequential(nn.Linear(32, 1), nn.ReLU())

        def forward(self, x):
            return self.output(self.hidden(x))
    """


def test_a_dead_relu_that_ends_a_sequential_is_removed(tmp_path):
    after = _after_finding(tmp_path, _SEQUENTIAL_RELU, "GD505", 5,
                           evidence={"first_constant": "output.1", "first_constant_line": 5})
    assert after.splitlines()[4] == "        self.output = nn.Sequential(nn.Linear(32, 1))"
    # Near misses: the run named another layer (the hidden ReLU feeds more layers), or no layer at all.
    assert _after_finding(tmp_path, _SEQUENTIAL_RELU, "GD505", 4,
                          evidence={"first_constant": "hidden.1", "first_constant_line": 4}) is None
    assert _after_finding(tmp_path, _SEQUENTIAL_RELU, "GD505", 5, evidence={"first_constant": "output.0",
                                                                            "first_constant_line": 5}) is None
