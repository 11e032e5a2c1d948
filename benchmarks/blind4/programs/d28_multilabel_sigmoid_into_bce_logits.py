"""Multi-label tagging of audio-like feature frames; the model returns probabilities for inference."""
import torch
import torch.nn as nn


class FrameTagger(nn.Module):
    def __init__(self, n_mels=32, n_tags=8):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, 64, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(64, 64, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(64, n_tags)

    def forward(self, mel):
        h = self.conv(mel).amax(-1)
        return torch.sigmoid(self.fc(h))


def predict_tags(model, mel, threshold=0.5):
    with torch.no_grad():
        return model(mel) > threshold


if __name__ == "__main__":
    torch.manual_seed(0)
    mel = torch.randn(160, 32, 50)
    tags = (mel[:, :8].mean(-1) > 0).float()
    model = FrameTagger()
    criterion = nn.BCEWithLogitsLoss(pos_weight=torch.full((8,), 2.0))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for i in range(0, 160, 32):
            probs = model(mel[i:i + 32])
            loss = criterion(probs, tags[i:i + 32])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item(), predict_tags(model, mel[:4]).sum().item())
