"""FixMatch-style semi-supervised step: softmax only for pseudo-label confidence; losses on logits."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, d=16, n_cls=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, n_cls))
        self.aux = nn.Linear(64, 3)

    def forward(self, x):
        h = self.net[1](self.net[0](x))
        return self.net[2](h), self.aux(h)


def weak(x):
    return x + 0.05 * torch.randn_like(x)


def strong(x):
    return x * (torch.rand_like(x) > 0.3) + 0.3 * torch.randn_like(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    centers = torch.randn(4, 16) * 2
    y_l = torch.randint(0, 4, (64,))
    x_l = centers[y_l] + torch.randn(64, 16)
    x_u = centers[torch.randint(0, 4, (256,))] + torch.randn(256, 16)
    attrs = (x_l[:, :3] > 0).float()
    model = Classifier()
    bce = nn.BCEWithLogitsLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
    for step in range(30):
        logits_l, attr_logits = model(x_l)
        sup = F.cross_entropy(logits_l, y_l) + bce(attr_logits, attrs)
        with torch.no_grad():
            probs = torch.softmax(model(weak(x_u))[0], dim=-1)
            conf, pseudo = probs.max(-1)
            mask = (conf > 0.7).float()
        unsup = (F.cross_entropy(model(strong(x_u))[0], pseudo, reduction="none") * mask).mean()
        loss = sup + unsup
        opt.zero_grad()
        loss.backward()
        opt.step()
        attr_pred = torch.sigmoid(attr_logits.detach()) > 0.5
        acc = (logits_l.softmax(-1).argmax(-1) == y_l).float().mean()
    print(loss.item(), acc.item(), mask.mean().item(), attr_pred.float().mean().item())
