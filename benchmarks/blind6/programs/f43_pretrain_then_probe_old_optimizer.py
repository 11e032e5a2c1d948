# Two-stage script: autoencoder pre-training, then a classifier head on frozen
# features. The stage-2 loop was copied from stage 1 and still steps the
# pre-training optimizer.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(600, 30)
y = (X[:, 0] + X[:, 1] > 0).long()

encoder = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Linear(64, 16))
decoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 30))
pretrain_opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)

# stage 1: reconstruction
for epoch in range(3):
    for i in range(0, 600, 50):
        recon = decoder(encoder(X[i:i + 50]))
        rec_loss = F.mse_loss(recon, X[i:i + 50])
        pretrain_opt.zero_grad()
        rec_loss.backward()
        pretrain_opt.step()
    print("pretrain", epoch, rec_loss.item())

# stage 2: linear classifier on the frozen encoder
head = nn.Linear(16, 2)
head_opt = torch.optim.Adam(head.parameters(), lr=1e-2)
for epoch in range(3):
    for i in range(0, 600, 50):
        with torch.no_grad():
            feats = encoder(X[i:i + 50])
        cls_loss = F.cross_entropy(head(feats), y[i:i + 50])
        head_opt.zero_grad()
        cls_loss.backward()
        pretrain_opt.step()
    print("probe", epoch, cls_loss.item())
