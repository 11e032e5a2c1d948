# LSTM sentiment classifier, plain script. The loop clears and computes
# gradients but never applies them.
import torch
import torch.nn as nn

VOCAB, EMB, HID = 1000, 50, 64


class SentimentLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HID, batch_first=True)
        self.fc = nn.Linear(HID, 1)

    def forward(self, x):
        _, (h, _) = self.lstm(self.embedding(x))
        return self.fc(h[-1]).squeeze(1)


model = SentimentLSTM()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
reviews = torch.randint(0, VOCAB, (256, 30))
sentiment = torch.randint(0, 2, (256,)).float()

for epoch in range(3):
    model.train()
    epoch_loss = 0.0
    for i in range(0, 256, 32):
        optimizer.zero_grad()
        predictions = model(reviews[i:i + 32])
        loss = criterion(predictions, sentiment[i:i + 32])
        loss.backward()
        epoch_loss += loss.item()
    print(f"Epoch {epoch + 1} | Train Loss: {epoch_loss / 8:.3f}")
