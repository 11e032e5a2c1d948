"""A fastai-style Learner whose callbacks do the work around the step: clipping after backward,
clearing gradients after the step, an epoch-counted schedule stepped after each epoch, callbacks
called by event name through `getattr` (in the style of fastai's and skorch's callback systems)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Callback:
    def before_fit(self, learn):
        pass

    def after_backward(self, learn):
        pass

    def after_step(self, learn):
        pass

    def after_epoch(self, learn):
        pass


class GradientClip(Callback):
    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm

    def after_backward(self, learn):
        nn.utils.clip_grad_norm_(learn.model.parameters(), self.max_norm)


class ClearGrads(Callback):
    def after_step(self, learn):
        learn.opt.zero_grad()


class EpochSchedule(Callback):
    def before_fit(self, learn):
        self.sched = torch.optim.lr_scheduler.StepLR(learn.opt, step_size=10, gamma=0.5)

    def after_epoch(self, learn):
        self.sched.step()


class Recorder(Callback):
    def __init__(self):
        self.losses = []

    def after_step(self, learn):
        self.losses.append(learn.loss.item())


class Learner:
    def __init__(self, model, loader, cbs=()):
        self.model, self.loader = model, loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        self.cbs = list(cbs)

    def __call__(self, event):
        for cb in self.cbs:
            getattr(cb, event)(self)

    def one_batch(self, x, y):
        self.loss = F.cross_entropy(self.model(x), y)
        self.loss.backward()
        self("after_backward")
        self.opt.step()
        self("after_step")

    def fit(self, epochs):
        self("before_fit")
        self.opt.zero_grad()
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.loader:
                self.one_batch(x, y)
            self("after_epoch")


if __name__ == "__main__":
    loader = [(torch.randn(32, 20), torch.randint(0, 5, (32,))) for _ in range(25)]
    recorder = Recorder()
    learn = Learner(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)), loader,
                    cbs=[GradientClip(0.5), ClearGrads(), EpochSchedule(), recorder])
    learn.fit(30)
    print(recorder.losses[-1])
