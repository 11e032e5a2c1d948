"""Train denoising-diffusion-pytorch's models as its README shows, tiny sizes, synthetic data.

Driver of benchmarks/real_pipelines.py (copied into the scratch folder). --kind:
  loop      Unet + GaussianDiffusion, the README's own loop (loss = diffusion(images); backward) with Adam
  trainer   the repository's Trainer on an image folder (accelerate, EMA, gradient accumulation;
            it asserts an effective batch of at least 16: 8 x 2)
  loop1d    Unet1D + GaussianDiffusion1D, objective pred_v
  trainer1d the repository's Trainer1D on a Dataset1D
"""

import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--kind", default="loop")
parser.add_argument("--steps", type=int, default=8)
args = parser.parse_args()
torch.manual_seed(0)

if args.kind in ("loop", "trainer"):
    from denoising_diffusion_pytorch import GaussianDiffusion, Trainer, Unet

    model = Unet(dim=8, dim_mults=(1, 2), flash_attn=False)
    diffusion = GaussianDiffusion(model, image_size=16, timesteps=50, sampling_timesteps=10)
    if args.kind == "loop":
        optimizer = torch.optim.Adam(diffusion.parameters(), lr=1e-4)
        images = torch.rand(8, 3, 16, 16)
        for step in range(args.steps):
            loss = diffusion(images)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"step {step} loss {loss.item():.6f}")
    else:
        trainer = Trainer(diffusion, "images", train_batch_size=8, train_lr=8e-5, train_num_steps=args.steps,
                          gradient_accumulate_every=2, ema_decay=0.995, amp=False, calculate_fid=False,
                          save_and_sample_every=args.steps, num_samples=4, results_folder="results")
        trainer.train()
else:
    from denoising_diffusion_pytorch import Dataset1D, GaussianDiffusion1D, Trainer1D, Unet1D

    model = Unet1D(dim=8, dim_mults=(1, 2), channels=4)
    diffusion = GaussianDiffusion1D(model, seq_length=32, timesteps=50, objective="pred_v")
    sequences = torch.rand(16, 4, 32)
    if args.kind == "loop1d":
        optimizer = torch.optim.Adam(diffusion.parameters(), lr=1e-4)
        for step in range(args.steps):
            loss = diffusion(sequences[:8])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"step {step} loss {loss.item():.6f}")
    else:
        trainer = Trainer1D(diffusion, dataset=Dataset1D(sequences), train_batch_size=8, train_lr=8e-5,
                            train_num_steps=args.steps, gradient_accumulate_every=2, ema_decay=0.995, amp=False,
                            save_and_sample_every=args.steps, num_samples=4, results_folder="results")
        trainer.train()
