"""Fine-tune a tiny transformers model with peft, as peft's README and examples do.

Driver of benchmarks/real_pipelines.py (copied into the scratch folder). Nothing is downloaded:
the base models are built from small configs (random weights), the data is synthetic. --kind:
  lora_causal     GPT-2 + LoRA (CAUSAL_LM), AdamW, linear schedule
  lora_seqcls     BERT + LoRA (SEQ_CLS: the classifier is trained fully, modules_to_save)
  lora_checkpoint GPT-2 + LoRA with gradient checkpointing and enable_input_require_grads()
  ia3             GPT-2 + IA3 (CAUSAL_LM; peft's SEQ_2_SEQ_LM model wraps a generation hook that
                  transformers 5 removed, so T5 + IA3 fails under plain python there)
  prompt_tuning   GPT-2 + prompt tuning (virtual tokens only)
  prefix_tuning   GPT-2 + prefix tuning
"""

import argparse

import torch
from transformers import (BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel,
                          get_linear_schedule_with_warmup)

from peft import (IA3Config, LoraConfig, PrefixTuningConfig, PromptTuningConfig, TaskType, get_peft_model)

parser = argparse.ArgumentParser()
parser.add_argument("--kind", default="lora_causal")
parser.add_argument("--steps", type=int, default=12)
args = parser.parse_args()
torch.manual_seed(0)

vocab, length, batch = 128, 16, 8
# a learnable language: each token mostly follows from the one before
follow = torch.randint(0, vocab, (vocab,))
tokens = torch.zeros(64, length, dtype=torch.long)
tokens[:, 0] = torch.randint(0, vocab, (64,))
for t in range(1, length):
    noise = torch.rand(64) < 0.1
    tokens[:, t] = torch.where(noise, torch.randint(0, vocab, (64,)), follow[tokens[:, t - 1]])
labels = (tokens[:, 0] % 2).long()

gpt2 = GPT2Config(vocab_size=vocab, n_positions=64, n_embd=32, n_layer=2, n_head=2)
if args.kind == "lora_seqcls":
    base = BertForSequenceClassification(BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2,
                                                    num_attention_heads=2, intermediate_size=64, num_labels=2))
    peft_config = LoraConfig(task_type=TaskType.SEQ_CLS, r=4, lora_alpha=16, lora_dropout=0.1,
                             target_modules=["query", "value"])
else:
    base = GPT2LMHeadModel(gpt2)
    if args.kind in ("lora_causal", "lora_checkpoint"):
        peft_config = LoraConfig(task_type=TaskType.CAUSAL_LM, r=4, lora_alpha=16, lora_dropout=0.05,
                                 target_modules=["c_attn"], fan_in_fan_out=True)
    elif args.kind == "ia3":
        peft_config = IA3Config(task_type=TaskType.CAUSAL_LM, target_modules=["c_attn", "mlp.c_proj"],
                                feedforward_modules=["mlp.c_proj"], fan_in_fan_out=True)
    elif args.kind == "prompt_tuning":
        peft_config = PromptTuningConfig(task_type=TaskType.CAUSAL_LM, num_virtual_tokens=4)
    elif args.kind == "prefix_tuning":
        peft_config = PrefixTuningConfig(task_type=TaskType.CAUSAL_LM, num_virtual_tokens=4)
    else:
        raise SystemExit(f"unknown kind {args.kind}")
if args.kind == "lora_checkpoint":
    base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    base.enable_input_require_grads()
model = get_peft_model(base, peft_config)
model.print_trainable_parameters()

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=args.steps)
model.train()
for step in range(args.steps):
    rows = torch.arange(step * batch, (step + 1) * batch) % len(tokens)
    x = tokens[rows]
    if args.kind == "lora_seqcls":
        out = model(input_ids=x, labels=labels[rows])
    else:
        out = model(input_ids=x, labels=x)
    out.loss.backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    print(f"step {step} loss {out.loss.item():.6f}")
model.save_pretrained("adapter")
