"""A character-level RNN trained and then sampled as in spro/char-rnn.pytorch: the model keeps its
dropout on while generating ("purposely add some chaos"), and the sampled text is only printed."""
import string

import torch
from torch import nn

torch.manual_seed(0)
all_characters = string.ascii_lowercase + " "
n_characters = len(all_characters)
text = "the quick brown fox jumps over the lazy dog " * 20


class CharRNN(nn.Module):
    def __init__(self, hidden_size=48, dropout=0.2):
        super().__init__()
        self.encoder = nn.Embedding(n_characters, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.decoder = nn.Linear(hidden_size, n_characters)

    def forward(self, inp, hidden=None):
        output, hidden = self.gru(self.encoder(inp), hidden)
        return self.decoder(self.drop(output)), hidden


def char_tensor(s):
    return torch.tensor([all_characters.index(c) for c in s], dtype=torch.long)


def generate(decoder, prime_str="th", predict_len=40, temperature=0.8):
    hidden = None
    prime_input = char_tensor(prime_str).unsqueeze(0)
    predicted = prime_str
    with torch.no_grad():
        _, hidden = decoder(prime_input[:, :-1])
        inp = prime_input[:, -1:]
        for _ in range(predict_len):
            output, hidden = decoder(inp, hidden)
            # Sample from the network as a multinomial distribution; dropout stays on on purpose
            output_dist = output.view(-1).div(temperature).exp()
            top_i = torch.multinomial(output_dist, 1)[0]
            predicted += all_characters[top_i]
            inp = char_tensor(all_characters[top_i]).unsqueeze(0)
    return predicted


decoder = CharRNN()
optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
data = char_tensor(text)
chunk_len, batch_size = 20, 8

for epoch in range(1, 41):
    starts = torch.randint(0, len(data) - chunk_len - 1, (batch_size,))
    inp = torch.stack([data[s:s + chunk_len] for s in starts])
    target = torch.stack([data[s + 1:s + chunk_len + 1] for s in starts])
    optimizer.zero_grad()
    output, _ = decoder(inp)
    loss = criterion(output.reshape(-1, n_characters), target.reshape(-1))
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(f"[{epoch}] loss {loss.item():.3f}")
        print(generate(decoder, "th", 30))
