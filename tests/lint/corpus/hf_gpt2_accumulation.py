"""Causal LM fine-tuning with transformers: gradient accumulation with loss / k, linear warm-up."""
import torch
from torch.utils.data import DataLoader
from transformers import GPT2Config, GPT2LMHeadModel, get_linear_schedule_with_warmup

config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=512, n_positions=128)
model = GPT2LMHeadModel(config)
no_decay = ["bias", "LayerNorm.weight"]
grouped = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(grouped, lr=5e-5)
accum = 8
train_dataloader = DataLoader(dataset, batch_size=4, shuffle=True)
num_update_steps = len(train_dataloader) // accum * 3
lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=num_update_steps)
completed_steps = 0
for epoch in range(3):
    model.train()
    for step, batch in enumerate(train_dataloader):
        outputs = model(input_ids=batch["input_ids"], labels=batch["input_ids"])
        loss = outputs.loss / accum
        loss.backward()
        if (step + 1) % accum == 0 or step == len(train_dataloader) - 1:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            completed_steps += 1
        if step % 100 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item() * accum:.4f}")
    model.eval()
    losses = []
    for batch in eval_dataloader:
        with torch.no_grad():
            outputs = model(input_ids=batch["input_ids"], labels=batch["input_ids"])
        losses.append(outputs.loss.repeat(batch["input_ids"].size(0)))
    print("eval loss", torch.cat(losses).mean().item())
