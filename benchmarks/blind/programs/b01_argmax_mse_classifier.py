# Multi-class blobs classifier trained with MSE on predicted labels (forum post, 2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

N_SAMPLES, N_FEATURES, N_CLASSES = 256, 2, 4
centers = torch.randn(N_CLASSES, N_FEATURES) * 3
y_all = torch.randint(0, N_CLASSES, (N_SAMPLES,))
X_all = centers[y_all] + torch.randn(N_SAMPLES, N_FEATURES)

split = int(0.8 * N_SAMPLES)
X_train, y_train = X_all[:split], y_all[:split]
X_test, y_test = X_all[split:], y_all[split:]


class BlobModel(nn.Module):
    def __init__(self, input_features, output_features, hidden_units=8):
        super().__init__()
        self.linear_layer_stack = nn.Sequential(
            nn.Linear(input_features, hidden_units),
            nn.ReLU(),
            nn.Linear(hidden_units, hidden_units),
            nn.ReLU(),
            nn.Linear(hidden_units, output_features),
        )

    def forward(self, x):
        return self.linear_layer_stack(x)


model = BlobModel(N_FEATURES, N_CLASSES)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def accuracy_fn(y_true, y_pred):
    return (y_true == y_pred).sum().item() / len(y_pred) * 100


epochs = 20
for epoch in range(epochs):
    model.train()
    train_logits = model(X_train)
    train_preds = torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)
    loss = loss_fn(train_preds, y_train.type(torch.float32))
    acc = accuracy_fn(y_train, train_preds)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    model.eval()
    with torch.inference_mode():
        test_logits = model(X_test)
        test_preds = torch.softmax(test_logits, dim=1).argmax(dim=1)
        test_acc = accuracy_fn(y_test, test_preds)
    print(f"Epoch: {epoch} | Loss: {loss:.5f}, Acc: {acc:.2f}% | Test acc: {test_acc:.2f}%")
