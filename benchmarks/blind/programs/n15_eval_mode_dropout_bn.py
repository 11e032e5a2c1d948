# Correct: dropout + batch norm; evaluation in eval mode under no_grad, train mode restored each epoch.
import torch
import torch.nn as nn

torch.manual_seed(0)
x_train, x_val = torch.randn(160, 1, 8, 8), torch.randn(64, 1, 8, 8)
y_train = (x_train.mean((1, 2, 3)) > 0).long()
y_val = (x_val.mean((1, 2, 3)) > 0).long()

model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Dropout(0.5), nn.Linear(288, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
val_history = []

for epoch in range(5):
    model.train()
    for i in range(0, 160, 32):
        optimizer.zero_grad()
        loss = criterion(model(x_train[i:i + 32]), y_train[i:i + 32])
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_logits = model(x_val)
        val_loss = criterion(val_logits, y_val)
        val_acc = (val_logits.argmax(1) == y_val).float().mean()
    val_history.append(val_loss)
    print(f"epoch {epoch} train {loss.item():.4f} val {val_loss.item():.4f} acc {val_acc.item():.3f}")
