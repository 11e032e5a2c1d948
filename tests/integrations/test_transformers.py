"""GradDoctorCallback under the real Transformers Trainer (tiny GPT-2 from a config, no downloads)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

transformers = pytest.importorskip("transformers")

from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments  # noqa: E402

from graddoctor.integrations.core import GradDoctorFailed  # noqa: E402
from graddoctor.integrations.transformers import GradDoctorCallback  # noqa: E402
from graddoctor.session import dispatch  # noqa: E402

pytestmark = pytest.mark.integration
ORIGINAL_BACKWARD = torch.autograd.backward


def line_of(marker: str) -> int:
    with open(__file__, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if text.rstrip().endswith(f"# <- {marker}"):
                return number
    raise AssertionError(marker)


def config() -> GPT2Config:
    return GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=16)


class WithAuxHead(GPT2LMHeadModel):
    """A GPT-2 with an extra head that forward never uses (a forgotten auxiliary loss)."""

    def __init__(self, cfg, freeze_aux: bool = False):
        super().__init__(cfg)
        self.aux_head = nn.Linear(cfg.n_embd, 3)
        if freeze_aux:
            self.aux_head.requires_grad_(False)


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n: int = 16, length: int = 8):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, 64, (n, length), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class CrashingTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        if self.state.global_step == 1:
            raise RuntimeError("broken batch")  # <- raise
        return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)


class OwnLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        logits = model(input_ids=inputs["input_ids"]).logits
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), inputs["labels"].flatten())
        return loss  # <- own loss


def trainer_for(model, callback, tmp_path, cls=Trainer, **options) -> Trainer:
    args = TrainingArguments(
        output_dir=str(tmp_path), max_steps=options.pop("max_steps", 3), per_device_train_batch_size=4,
        report_to="none", use_cpu=True, logging_strategy="no", save_strategy="no", disable_tqdm=True,
        learning_rate=1e-3, **options,
    )
    return cls(model=model, args=args, train_dataset=Tokens(), callbacks=[callback] if callback else [])


def assert_detached():
    assert dispatch.active_sessions() == []
    assert torch.autograd.backward is ORIGINAL_BACKWARD


def serious(report):
    return [f"{f.code} {f.file}:{f.line} {f.message}" for f in report.findings if f.severity >= 2]


def test_unused_head_fires_gd104_at_the_train_line(tmp_path, capsys):
    callback = GradDoctorCallback()
    model = WithAuxHead(config())
    trainer = trainer_for(model, callback, tmp_path)
    trainer.train()  # <- train
    assert_detached()
    (finding,) = [f for f in callback.report().findings if f.code == "GD104"]
    assert finding.subjects == ["model.aux_head.weight", "model.aux_head.bias"]
    assert finding.file.endswith("test_transformers.py") and finding.line == line_of("train")
    assert model.aux_head.weight.grad is None  # the oracle: torch agrees
    assert "GD104" in capsys.readouterr().out


def test_own_compute_loss_is_the_backward_line(tmp_path):
    callback = GradDoctorCallback(print_report=False)
    trainer_for(WithAuxHead(config()), callback, tmp_path, cls=OwnLossTrainer).train()
    (finding,) = [f for f in callback.report().findings if f.code == "GD104"]
    assert finding.line == line_of("own loss")


@pytest.mark.parametrize(
    "options",
    [{}, {"gradient_accumulation_steps": 2, "max_grad_norm": 1.0, "lr_scheduler_type": "cosine", "warmup_steps": 2}],
    ids=["plain", "accumulate-clip-warmup"],
)
def test_correct_gpt2_training_is_silent(tmp_path, options):
    callback = GradDoctorCallback(print_report=False)
    trainer_for(GPT2LMHeadModel(config()), callback, tmp_path, **options).train()
    report = callback.report()
    assert serious(report) == []
    assert report.steps_observed == 3


def test_frozen_unused_head_is_silent(tmp_path):
    callback = GradDoctorCallback(print_report=False)
    trainer_for(WithAuxHead(config(), freeze_aux=True), callback, tmp_path).train()
    assert serious(callback.report()) == []


def test_user_exception_propagates_and_hooks_are_removed(tmp_path):
    callback = GradDoctorCallback(print_report=False)
    trainer = trainer_for(GPT2LMHeadModel(config()), callback, tmp_path, cls=CrashingTrainer)
    with pytest.raises(RuntimeError, match="broken batch"):
        trainer.train()
    assert_detached()
    report = callback.report()
    assert report.status == "crashed" and report.exception["line"] == line_of("raise")


def test_fail_on_error_raises_after_train(tmp_path):
    callback = GradDoctorCallback(fail_on="error", print_report=False)
    with pytest.raises(GradDoctorFailed, match="GD104"):
        trainer_for(WithAuxHead(config()), callback, tmp_path).train()
    assert_detached()


def test_results_are_bit_identical_with_the_callback(tmp_path):
    def trained(callback):
        torch.manual_seed(3)
        model = GPT2LMHeadModel(config())
        trainer_for(model, callback, tmp_path, seed=3).train()
        return [p.detach().clone() for p in model.parameters()]

    plain = trained(None)
    watched = trained(GradDoctorCallback(print_report=False))
    assert all(torch.equal(a, b) for a, b in zip(plain, watched))
