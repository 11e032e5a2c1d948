# Correct: blobs classifier; argmax chain only feeds the accuracy, the loss takes the logits.
import torch
import torch.nn as nn

torch.manual_seed(0)

N_SAMPLES, N_FEATURES, N_CLASSES = 256, 2, 4
centers = torch.randn(N_CLASSES, N_FEATURES) * 3
y_all = torch.randint(0, N_CLASSES, (N_SAMPLES,))
X_all = centers[y_all] + torch.randn(N_SAMPLES, N_FEATURES)
X_train, y_train = X_all[:200], y_all[:200]


class BlobModel(nn.Module):
    def __init__(self, input_features, output_features, hidden_units=8):
        super().__init__()
        self.linear_layer_stack = nn.Sequential(
            nn.Linear(input_features, hidden_units), nn.ReLU(),
            nn.Linear(hidden_units, output_features),
        )

    def forward(self, x):
        return self.linear_layer_stack(x)


model = BlobModel(N_FEATURES, N_CLASSES)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def accuracy_fn(y_true, y_pred):
    return (y_true == y_pred).sum().item() / len(y_pred) * 100


for epoch in range(20):
    model.train()
    train_logits = model(X_train)
    train_preds = torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)
    loss = loss_fn(train_logits, y_train)
    acc = accuracy_fn(y_train.type(torch.float32), train_preds)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"Epoch: {epoch} | Loss: {loss:.5f}, Acc: {acc:.2f}%")
