"""A loop written for Hugging Face accelerate (accumulate, backward, clip, scheduler)."""
import torch
from accelerate import Accelerator
from transformers import AutoConfig, AutoModelForSequenceClassification, get_linear_schedule_with_warmup


def training_function(config, train_dataloader, eval_dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=config["grad_accum"], mixed_precision="fp16")
    model = AutoModelForSequenceClassification.from_config(AutoConfig.for_model("bert", num_labels=2))
    optimizer = torch.optim.AdamW(params=model.parameters(), lr=config["lr"])
    lr_scheduler = get_linear_schedule_with_warmup(
        optimizer=optimizer, num_warmup_steps=100, num_training_steps=len(train_dataloader) * config["num_epochs"]
    )
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader, lr_scheduler
    )
    for epoch in range(config["num_epochs"]):
        model.train()
        total_loss = 0
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                total_loss += loss.detach().float()
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        model.eval()
        correct = 0
        for step, batch in enumerate(eval_dataloader):
            with torch.no_grad():
                outputs = model(**batch)
            predictions = outputs.logits.argmax(dim=-1)
            predictions, references = accelerator.gather_for_metrics((predictions, batch["labels"]))
            correct += (predictions == references).sum().item()
        accelerator.print(f"epoch {epoch}: loss {total_loss.item() / len(train_dataloader):.4f} correct {correct}")
