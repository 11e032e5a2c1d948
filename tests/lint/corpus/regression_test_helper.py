"""Full-batch curve fitting that records a test helper's float loss every step (tutorial style)."""
import torch
import torch.nn as nn

x = torch.linspace(-1, 1, 200).unsqueeze(1)
y = x.pow(2) + 0.2 * torch.rand(x.size())

class Net(nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super().__init__()
        self.hidden = nn.Linear(n_feature, n_hidden)
        self.predict = nn.Linear(n_hidden, n_output)
    def forward(self, x):
        x = torch.relu(self.hidden(x))
        return self.predict(x)

net = Net(1, 10, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = nn.MSELoss()
loss_history = []
def test_model(net, x, y):
    with torch.no_grad():
        return loss_func(net(x), y).item()
for t in range(200):
    prediction = net(x)
    loss = loss_func(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    loss_history.append(test_model(net, x, y))
