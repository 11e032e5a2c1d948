"""A tiny GPT-2 (tied embeddings) fine-tuned with Hugging Face gradient checkpointing, reentrant and not."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging

logging.set_verbosity_error()
config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=16, bos_token_id=0, eos_token_id=0,
                    tie_word_embeddings=True, use_cache=False)
for reentrant in (True, False):
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 64, (4, 12))
    for step in range(3):
        out = model(input_ids=ids, labels=ids)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
    print("reentrant", reentrant, "loss", out.loss.item(), "weights",
          sum(p.double().sum() for p in model.parameters()).item())
