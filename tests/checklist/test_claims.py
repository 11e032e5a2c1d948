"""Every factual claim of docs/checklist.md, checked on the installed torch.

The checklist (graddoctor/checklist/items.py) cites these tests by name; a test
of tests/checklist/test_checklist_page.py fails when a cited test is missing.
Where circulating advice and these tests disagree, the tests win and the page
says so.
"""

from __future__ import annotations

import warnings
import weakref

import pytest
import torch
from torch import nn
from torch.nn import functional as F


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def _batch(n: int = 8):
    return torch.randn(n, 4), torch.randn(n, 1)


# --- "gradient is None" -------------------------------------------------------------------


def test_grad_is_none_before_the_first_backward():
    model = _mlp()
    assert all(p.grad is None for p in model.parameters())


def test_zero_grad_sets_grads_to_none_by_default():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _batch()
    F.mse_loss(model(x), y).backward()
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    F.mse_loss(model(x), y).backward()
    opt.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())


def test_nonetype_has_no_attribute_zero_comes_from_grad_zero_while_grad_is_none():
    """Not from backward() "returning None": from `p.grad.zero_()` while `p.grad` is None."""
    model = _mlp()
    unused = nn.Linear(4, 1)
    x, y = _batch()
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
        model[0].weight.grad.zero_()  # before the first backward
    result = F.mse_loss(model(x), y).backward()
    assert result is None  # backward() returns None, always; nothing uses its result
    model[0].weight.grad.zero_()  # fine once a gradient exists
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
        unused.weight.grad.zero_()  # a parameter the loss does not reach
    torch.optim.SGD(model.parameters(), lr=0.1).zero_grad()
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
        model[0].weight.grad.zero_()  # after zero_grad(), which sets grads to None


def test_parameter_not_used_in_forward_gets_no_grad():
    model = _mlp()
    extra = nn.Linear(8, 1)
    x, y = _batch()
    F.mse_loss(model(x), y).backward()
    assert extra.weight.grad is None and model[0].weight.grad is not None


def test_non_leaf_tensor_has_no_grad_unless_retain_grad():
    w = torch.randn(4, 1, requires_grad=True) * 0.01  # the multiply makes w a non-leaf
    x, y = _batch()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(x @ w, y).backward()
        assert w.grad is None
    assert any("non-leaf" in str(c.message) for c in caught)
    leaf = (torch.randn(4, 1) * 0.01).requires_grad_()
    F.mse_loss(x @ leaf, y).backward()
    assert leaf.grad is not None


def test_detach_data_item_and_numpy_cut_the_graph():
    model = _mlp()
    x, y = _batch()
    out = model(x)
    assert out.detach().grad_fn is None and not out.detach().requires_grad
    assert out.data.grad_fn is None and not out.data.requires_grad
    rewrapped = torch.tensor(out.detach().numpy(), requires_grad=True)
    F.mse_loss(rewrapped, y).backward()
    assert all(p.grad is None for p in model.parameters())  # the loss trained only the copy
    assert rewrapped.grad is not None


def test_loss_item_backward_fails_at_once():
    model = _mlp()
    x, y = _batch()
    with pytest.raises(AttributeError, match="'float' object has no attribute 'backward'"):
        F.mse_loss(model(x), y).item().backward()


def test_printing_loss_item_before_backward_is_harmless():
    x, y = _batch()
    torch.manual_seed(0)
    a = _mlp()
    torch.manual_seed(0)
    b = _mlp()
    loss = F.mse_loss(a(x), y)
    logged = loss.item()
    loss.backward()
    F.mse_loss(b(x), y).backward()
    assert isinstance(logged, float)
    assert all(torch.equal(p.grad, q.grad) for p, q in zip(a.parameters(), b.parameters()))


def test_loss_computed_under_no_grad_makes_backward_raise():
    model = _mlp()
    x, y = _batch()
    with torch.no_grad():
        loss = F.mse_loss(model(x), y)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        loss.backward()


def test_loss_computed_under_inference_mode_makes_backward_raise():
    model = _mlp()
    x, y = _batch()
    with torch.inference_mode():
        loss = F.mse_loss(model(x), y)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        loss.backward()


def test_backward_inside_no_grad_on_a_loss_built_outside_works():
    x, y = _batch()
    torch.manual_seed(0)
    a = _mlp()
    torch.manual_seed(0)
    b = _mlp()
    loss = F.mse_loss(a(x), y)
    with torch.no_grad():
        loss.backward()
    F.mse_loss(b(x), y).backward()
    assert all(torch.equal(p.grad, q.grad) for p, q in zip(a.parameters(), b.parameters()))


def test_frozen_parameters_get_no_grad():
    model = _mlp()
    model[0].requires_grad_(False)
    x, y = _batch()
    F.mse_loss(model(x), y).backward()
    assert model[0].weight.grad is None and model[2].weight.grad is not None


def test_nn_parameter_attribute_registers_but_plain_tensor_and_python_list_do_not():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.registered = nn.Parameter(torch.ones(2))
            self.plain = torch.ones(2, requires_grad=True)
            self.blocks = [nn.Linear(2, 2)]
            self.proper = nn.ModuleList([nn.Linear(2, 2)])

        def forward(self, x):
            return (self.proper[0](self.blocks[0](x)) * self.registered * self.plain).sum()

    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["registered", "proper.0.weight", "proper.0.bias"]
    net(torch.randn(3, 2)).backward()
    # The unregistered tensors still get gradients, but no optimizer built from parameters() updates them.
    assert net.plain.grad is not None and net.blocks[0].weight.grad is not None


# --- "loss does not go down" --------------------------------------------------------------


def test_zero_grad_before_backward_is_fine():
    x, y = _batch()
    torch.manual_seed(0)
    a = _mlp()
    torch.manual_seed(0)
    b = _mlp()
    opt_a = torch.optim.SGD(a.parameters(), lr=0.1)
    opt_b = torch.optim.SGD(b.parameters(), lr=0.1)
    for _ in range(3):
        opt_a.zero_grad()  # before backward
        F.mse_loss(a(x), y).backward()
        opt_a.step()
        F.mse_loss(b(x), y).backward()
        opt_b.step()
        opt_b.zero_grad()  # after step: the same thing
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_zero_grad_between_backward_and_step_cancels_the_update():
    model = _mlp()
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = _batch()
    for _ in range(3):
        F.mse_loss(model(x), y).backward()
        opt.zero_grad()
        opt.step()
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_missing_zero_grad_accumulates_gradients():
    model = _mlp()
    x, y = _batch()
    F.mse_loss(model(x), y).backward()
    once = model[0].weight.grad.clone()
    F.mse_loss(model(x), y).backward()
    torch.testing.assert_close(model[0].weight.grad, 2 * once)


def test_retain_graph_belongs_on_the_first_backward():
    model = _mlp()
    x, y = _batch()
    out = model(x)
    first, second = F.mse_loss(out, y), out.abs().mean()
    first.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        second.backward(retain_graph=True)  # too late: the shared part was freed by the first
    out = model(x)
    first, second = F.mse_loss(out, y), out.abs().mean()
    first.backward(retain_graph=True)
    second.backward()  # works, and frees the graph


def test_collate_fn_detach_on_targets_cuts_nothing():
    x, y = _batch()
    torch.manual_seed(0)
    a = _mlp()
    torch.manual_seed(0)
    b = _mlp()

    def collate_detached(batch):
        xs, ys = zip(*batch)
        return torch.stack(xs), torch.stack(ys).detach()

    xa, ya = collate_detached(list(zip(x, y)))
    F.mse_loss(a(xa), ya).backward()
    F.mse_loss(b(x), y).backward()
    assert all(p.grad is not None and torch.equal(p.grad, q.grad) for p, q in zip(a.parameters(), b.parameters()))


def test_jit_traced_module_trains():
    model = _mlp()
    x, y = _batch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit is deprecated in favour of torch.export/compile
        traced = torch.jit.trace(model, x)
    opt = torch.optim.SGD(traced.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = F.mse_loss(traced(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]
    assert all(torch.equal(p, q) for p, q in zip(traced.parameters(), model.parameters()))  # shared weights


def test_item_does_not_drop_the_graph_under_torch_compile():
    torch._dynamo.reset()
    model = _mlp()
    x, y = _batch()
    logged = []

    def step(x, y):
        loss = F.mse_loss(model(x), y)
        logged.append(loss.item())  # a graph break, not a cut
        return loss

    compiled = torch.compile(step, backend="aot_eager")
    loss = compiled(x, y)
    assert loss.grad_fn is not None
    loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    assert logged and isinstance(logged[0], float)
    torch._dynamo.reset()


def test_gradcheck_needs_float64():
    def f(x):
        return torch.tanh(x) * x

    x64 = torch.randn(5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(f, (x64,))
    x32 = x64.detach().float().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gradcheck warns about the float32 input first
        ok32 = torch.autograd.gradcheck(f, (x32,), raise_exception=False)
    assert not ok32
    with warnings.catch_warnings(record=True), pytest.raises(RuntimeError, match="Jacobian mismatch"):
        warnings.simplefilter("ignore")
        torch.autograd.gradcheck(f, (x32,))


def test_data_fill_raises_nothing_and_a_data_edit_after_forward_gives_a_wrong_gradient():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w.data.fill_(0.5)  # no error, no version bump autograd could see
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w ** 2).sum()  # saves w: d/dw = 2w = [2, 4, 6]
    w.data.mul_(10)  # after the forward pass, behind autograd's back
    loss.backward()
    assert w.grad is not None
    assert torch.equal(w.grad, torch.tensor([20.0, 40.0, 60.0]))  # silently wrong, not None, no error
    w2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w2 ** 2).sum()
    with torch.no_grad():
        w2.mul_(10)  # the same edit without .data is caught
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_in_place_op_on_a_leaf_that_requires_grad_raises():
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        w.add_(1)


def _live_activation_bytes(refs: list[weakref.ref]) -> int:
    return sum(t.numel() * t.element_size() for t in (r() for r in refs) if t is not None)


def test_summing_k_losses_before_backward_keeps_k_graphs_alive_and_scales_the_gradient():
    k = 4
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    micro = [_batch(16) for _ in range(k)]
    # Count activations only: parameters and the batches themselves stay alive either way.
    params = {p.data_ptr() for p in model.parameters()} | {t.data_ptr() for pair in micro for t in pair}

    def run(sum_first: bool, divide: bool) -> tuple[int, list[torch.Tensor]]:
        model.zero_grad()
        refs: list[weakref.ref] = []
        peak = 0

        def pack(t):
            if t.data_ptr() not in params:
                refs.append(weakref.ref(t))
            return t

        total = 0
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            for x, y in micro:
                loss = F.mse_loss(model(x), y) / (k if divide else 1)
                if sum_first:
                    total = total + loss
                else:
                    peak = max(peak, _live_activation_bytes(refs))
                    loss.backward()
                del loss
            if sum_first:
                peak = _live_activation_bytes(refs)
                total.backward()
        return peak, [p.grad.clone() for p in model.parameters()]

    summed_peak, summed_grads = run(sum_first=True, divide=False)
    each_peak, each_grads = run(sum_first=False, divide=True)
    assert summed_peak >= 0.95 * k * each_peak  # about k times the activation memory

    x_all = torch.cat([x for x, _ in micro])
    y_all = torch.cat([y for _, y in micro])
    model.zero_grad()
    F.mse_loss(model(x_all), y_all).backward()
    full = [p.grad.clone() for p in model.parameters()]
    for s, e, f in zip(summed_grads, each_grads, full):
        torch.testing.assert_close(s, k * f)  # the sum scales the gradient by k
        torch.testing.assert_close(e, f)  # loss / k per micro-batch gives the full-batch gradient

    _, summed_divided = run(sum_first=True, divide=True)
    for s, f in zip(summed_divided, full):
        torch.testing.assert_close(s, f)  # dividing the summed loss by k fixes the scale, not the memory


def test_eval_mode_changes_dropout_and_batchnorm_during_training():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 1))
    x, _ = _batch()
    model.eval()
    assert torch.equal(model(x), model(x))  # no dropout, running stats used
    before = model[1].running_mean.clone()
    model(x)
    assert torch.equal(model[1].running_mean, before)  # batch-norm statistics frozen
    model.train()
    assert not torch.equal(model(x), model(x))


def test_no_grad_alone_leaves_dropout_on_and_batchnorm_updating():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 1))
    x, _ = _batch()
    before = model[1].running_mean.clone()
    with torch.no_grad():
        assert not torch.equal(model(x), model(x))  # dropout still on
    assert not torch.equal(model[1].running_mean, before)  # running statistics overwritten by the test batch
    model.eval()
    with torch.no_grad():
        assert torch.equal(model(x), model(x))


def test_lstm_without_batch_first_mixes_the_samples_of_a_batch():
    torch.manual_seed(0)
    x = torch.randn(4, 6, 3)  # (batch, seq, feature)
    changed = x.clone()
    changed[0] += 1.0  # only the first sample changes
    seq_first = nn.LSTM(3, 5)
    assert not torch.allclose(seq_first(x)[0][3], seq_first(changed)[0][3])  # sample 3's output moved too
    batch_first = nn.LSTM(3, 5, batch_first=True)
    batch_first.load_state_dict(seq_first.state_dict())
    assert torch.equal(batch_first(x)[0][3], batch_first(changed)[0][3])


def test_scheduler_step_before_optimizer_step_warns():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match=r"lr_scheduler.step\(\)` before `optimizer.step\(\)"):
        sched.step()


def test_clipping_under_grad_scaler_without_unscale_clips_scaled_gradients():
    torch.manual_seed(0)
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    x, y = _batch()
    scaler.scale(F.mse_loss(model(x), y)).backward()
    scaled_norm = float(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    scaler.unscale_(opt)
    true_norm = float(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    assert scaled_norm == pytest.approx(1024.0 * true_norm, rel=1e-5)  # a clip threshold would be 1024x too tight


def test_a_correct_loop_overfits_one_small_batch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = _batch(8)
    first = None
    for _ in range(300):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.01 * first


def test_backward_without_step_changes_no_parameter():
    model = _mlp()
    before = [p.detach().clone() for p in model.parameters()]
    x, y = _batch()
    for _ in range(3):
        F.mse_loss(model(x), y).backward()
    assert all(p.grad is not None for p in model.parameters())
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_learning_rate_zero_leaves_parameters_unchanged():
    model = _mlp()
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.Adam(model.parameters(), lr=0.0)
    x, y = _batch()
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_parameters_left_out_of_the_optimizer_never_change():
    model = _mlp()
    before = model[0].weight.detach().clone()
    opt = torch.optim.SGD(model[2].parameters(), lr=0.1)
    x, y = _batch()
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    assert model[0].weight.grad is not None and torch.equal(model[0].weight, before)


def test_nan_in_the_loss_spreads_to_every_parameter_after_one_step():
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _batch()
    y[0] = float("nan")
    F.mse_loss(model(x), y).backward()
    opt.step()
    assert all(torch.isnan(p).all() for p in model.parameters())
