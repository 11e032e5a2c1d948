"""Configurations of benchmarks/real_pipelines.py added for issue 29 (a corpus three times larger).

Same rules as real_pipelines_configs.py: the repositories' scripts run unchanged, with tiny
sizes and synthetic data. Repositories that ship a library and no training script
(vit-pytorch, denoising-diffusion-pytorch, peft) are run through a short driver of ours
(real_pipelines_drivers/), copied into the scratch folder: the training loop a user of the
library writes from its README, the model code the repository's own.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image

from real_pipelines_configs import Config, synthetic_text

DRIVERS = Path(__file__).resolve().parent / "real_pipelines_drivers"

REPOS = {
    "pytorch-gan": "eriklindernoren/PyTorch-GAN",
    "yunjey": "yunjey/pytorch-tutorial",
    "ignite": "pytorch/ignite",
    "makemore": "karpathy/makemore",
    "morvan": "MorvanZhou/PyTorch-Tutorial",
    "vit-pytorch": "lucidrains/vit-pytorch",
    "denoising-diffusion": "lucidrains/denoising-diffusion-pytorch",
    "peft": "huggingface/peft",
}


def driver(name: str, then: Callable[[Path], object] = None) -> Callable[[Path], None]:
    """A `prepare` that copies real_pipelines_drivers/NAME into the scratch copy (then runs `then`)."""
    def prepare(root: Path):
        shutil.copy2(DRIVERS / name, root / name)
        return then(root) if then else None
    return prepare


def _image(path: Path, size: tuple, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    Image.fromarray((rng.random((size[1], size[0], 3)) * 255).astype(np.uint8)).save(path)


def prep_yunjey_text(root: Path) -> None:
    """language_model reads data/train.txt (Penn Treebank, 900k words: 1500 steps an epoch); a small text."""
    (root / "data").mkdir(exist_ok=True)  # the snapshot lacks the 5 MB original
    (root / "data" / "train.txt").write_text(synthetic_text(3000, 21))


def prep_yunjey_style(root: Path) -> None:
    _image(root / "png" / "content.png", (64, 48), 22)
    _image(root / "png" / "style.png", (64, 48), 23)


def prep_images_folder(root: Path) -> None:
    """An image folder (ImageFolder layout, one class) for the diffusion trainer, which asserts at least 100."""
    for i in range(100):
        _image(root / "images" / "all" / f"img_{i:02d}.png", (32, 32), 100 + i)
    _image(root / "style.jpg", (64, 64), 99)


# ---------------------------------------------------------------- eriklindernoren/PyTorch-GAN
# None of the scripts seeds: seed=True seeds torch, numpy and random at start, for both runs.
# Each reads MNIST at ../../data/mnist (the stand-in: 256 samples, 4 batches of 64 an epoch).

_GAN_ARGS = ["--n_epochs", "1", "--batch_size", "64", "--sample_interval", "1000", "--n_cpu", "0"]


def _gan(name: str, extra: list = (), script: str = "") -> Config:
    return Config(f"gan_{name}", "pytorch-gan", "implementations", f"{script or name}.py",
                  list(_GAN_ARGS) + list(extra), cwd=name, seed=True)


# began.py is left out: `(...).data[0]` on a 0-dim tensor, an IndexError since torch 0.5, under python too
_GAN = [_gan(n) for n in ("gan", "dcgan", "aae", "acgan", "bgan", "cgan", "dragan", "ebgan", "infogan",
                          "lsgan", "sgan", "softmax_gan")]
_GAN += [
    _gan("relativistic_gan", ["--rel_avg_gan"]),
    # the critic trains on every batch, the generator on every n_critic-th: two epochs so that it steps twice
    _gan("wgan", ["--n_epochs", "2", "--n_critic", "2"]),
    _gan("wgan_gp", ["--n_epochs", "2", "--n_critic", "2"]),
    _gan("wgan_div", ["--n_epochs", "2", "--n_critic", "2"]),
    # clustergan.py calls .cuda() and torch.cuda.FloatTensor whether CUDA exists or not: on this CPU-only
    # machine GD_BENCH_CUDA_ON_CPU (real_pipelines_seed/) makes them CPU ones, in both runs alike
    Config("gan_cluster_gan", "pytorch-gan", "implementations", "clustergan.py", ["-n", "1", "-b", "64"],
           cwd="cluster_gan", seed=True, env={"GD_BENCH_CUDA_ON_CPU": "1"}),
]

# ---------------------------------------------------------------- yunjey/pytorch-tutorial
# Hard-coded hyperparameters, no command line; MNIST/CIFAR-10 at ../../data (the stand-ins, capped
# by GD_BENCH_DATASET_LEN). They print every 100 steps, which these sizes never reach: the
# comparison is on the checkpoints they save. Most never seed (seed=True). 01-basics/pytorch_basics
# is left out: it calls `data_iter.next()`, gone from DataLoader iterators since torch 1.13.


def _yunjey(name: str, where: str, artifacts: list, length: int = 300, **kw) -> Config:
    return Config(f"yunjey_{name}", "yunjey", "tutorials", "main.py", [], cwd=where, seed=True,
                  env={"GD_BENCH_DATASET_LEN": str(length), "GD_BENCH_DATASET_LEN_TEST": "100"},
                  artifacts=[f"{where}/{a}" for a in artifacts], loss_words=("loss",), **kw)


_YUNJEY = [
    _yunjey("linear_regression", "01-basics/linear_regression", ["model.ckpt"]),
    _yunjey("logistic_regression", "01-basics/logistic_regression", ["model.ckpt"]),
    _yunjey("feedforward", "01-basics/feedforward_neural_network", ["model.ckpt"]),
    _yunjey("cnn", "02-intermediate/convolutional_neural_network", ["model.ckpt"]),
    # 80 epochs of one batch: 80 steps of a small ResNet with a learning-rate decay every 20 epochs
    _yunjey("resnet", "02-intermediate/deep_residual_network", ["resnet.ckpt"], length=100),
    _yunjey("rnn", "02-intermediate/recurrent_neural_network", ["model.ckpt"]),
    _yunjey("birnn", "02-intermediate/bidirectional_recurrent_neural_network", ["model.ckpt"]),
    _yunjey("language_model", "02-intermediate/language_model", ["model.ckpt", "sample.txt"],
            prepare=lambda r: prep_yunjey_text(r / "02-intermediate" / "language_model")),
    # 200 epochs of one batch: 200 discriminator and 200 generator steps
    _yunjey("gan", "03-advanced/generative_adversarial_network", ["G.ckpt", "D.ckpt"], length=100),
    _yunjey("vae", "03-advanced/variational_autoencoder", [], length=256),
]
_YUNJEY.append(Config("yunjey_neural_style", "yunjey", "tutorials", "main.py",
                      ["--max_size", "48", "--total_step", "12", "--log_step", "2", "--sample_step", "6"],
                      cwd="03-advanced/neural_style_transfer", seed=True, env={"GD_BENCH_PIL_ANTIALIAS": "1"},
                      prepare=lambda r: prep_yunjey_style(r / "03-advanced" / "neural_style_transfer")))

# ---------------------------------------------------------------- pytorch/ignite examples
# The examples import ignite from the repository (library=["."]).

_IGNITE_MNIST = ["--epochs", "1", "--batch_size", "64", "--val_batch_size", "128", "--log_interval", "1"]


def _ignite(name: str, where: str, script: str, args: list, **kw) -> Config:
    return Config(f"ignite_{name}", "ignite", "examples", script, args, cwd=where, library=["."], **kw)


_IGNITE = [
    # mnist.py and its logger variants never seed
    _ignite("mnist", "mnist", "mnist.py", _IGNITE_MNIST, seed=True),
    # the tqdm variant has no --log_interval (its bar shows every iteration)
    _ignite("mnist_tqdm_logger", "mnist", "mnist_with_tqdm_logger.py", _IGNITE_MNIST[:-2], seed=True),
    _ignite("mnist_tensorboard", "mnist", "mnist_with_tensorboard.py", _IGNITE_MNIST + ["--log_dir", "tb"],
            seed=True),
    # no --log_interval either: the TensorBoard-logger variant logs every iteration
    _ignite("mnist_tensorboard_logger", "mnist", "mnist_with_tensorboard_logger.py",
            _IGNITE_MNIST[:-2] + ["--log_dir", "tb"], seed=True),
    _ignite("mnist_save_resume", "mnist", "mnist_save_resume_engine.py",
            _IGNITE_MNIST + ["--epochs", "2", "--log_dir", "ckpt", "--deterministic"],
            artifacts=["mnist/ckpt/*.pt"]),
    # --dataset mnist fails under python too (a 3-channel Normalize on 1-channel images): CIFAR-10
    _ignite("dcgan_cifar10", "gan", "dcgan.py",
            ["--dataset", "cifar10", "--dataroot", "data", "--workers", "0", "--batch-size", "16", "--epochs", "1",
             "--z-dim", "16", "--g-filters", "8", "--d-filters", "8", "--output-dir", "out", "--seed", "3"],
            env={"GD_BENCH_DATASET_LEN": "64"}, artifacts=["gan/out/*.pt"]),
    # both seed each episode, but build the policy before any seed: seed=True
    _ignite("reinforce", "reinforcement_learning", "reinforce.py", ["--log-interval", "1", "--max-episodes", "60"],
            env={"GD_BENCH_REWARD_THRESHOLD": "20"}, loss_words=("reward",), seed=True),
    _ignite("actor_critic", "reinforcement_learning", "actor_critic.py",
            ["--log-interval", "1", "--max-episodes", "60"], env={"GD_BENCH_REWARD_THRESHOLD": "20"},
            loss_words=("reward",), seed=True),
    # no --num-workers: the script reads it as a string (no type=), and `DataLoader` rejects "0"
    _ignite("siamese_network", "siamese_network", "siamese_network.py",
            ["--epochs", "1", "--batch-size", "32", "--test-batch-size", "32", "--lr", "1.0"],
            env={"GD_BENCH_DATASET_LEN": "96", "GD_BENCH_DATASET_LEN_TEST": "64"}),
]

# ---------------------------------------------------------------- karpathy/makemore, ng-video-lecture

_MAKEMORE = ["--max-steps", "60", "--num-workers", "0", "--n-layer", "2", "--n-head", "2", "--n-embd", "32",
             "--n-embd2", "32", "--batch-size", "16", "--work-dir", "out"]
_MAKEMORE_CONFIGS = [Config(f"makemore_{kind}", "makemore", ".", "makemore.py", _MAKEMORE + ["--type", kind],
                            artifacts=["out/model.pt"]) for kind in ("transformer", "bigram", "mlp", "rnn", "gru",
                                                                     "bow")]

# karpathy/ng-video-lecture is left out: bigram.py's 3000 steps (hard-coded) ran past 240 s on the
# shared machine, gpt.py (5000 steps of a 6-layer model) much more.

# ---------------------------------------------------------------- MorvanZhou/PyTorch-Tutorial
# One-file tutorials, synthetic data of their own; they draw with matplotlib (Agg here). Their
# `torch.manual_seed(1)` is commented out: seed=True (304's two runs differed without it).

# Only 304 saves its model (net.pkl, net_params.pkl) and torch.loads the whole pickled model back, which
# torch >= 2.6 refuses by default (weights_only); the others print no loss: not compared.
_MORVAN = [Config(f"morvan_{name.split('_', 1)[1].lower()}", "morvan", "tutorial-contents", f"{name}.py", [],
                  artifacts=["net_params.pkl"] if name.startswith("304") else [],
                  env={"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"} if name.startswith("304") else {}, seed=True)
           for name in ("301_regression", "302_classification", "304_save_reload", "306_optimizer",
                        "403_RNN_regressor", "501_why_torch_dynamic_graph", "503_dropout", "504_batch_normalization")]

# ---------------------------------------------------------------- lucidrains/vit-pytorch
# train_vit_decorr.py: the repository's own training script (CIFAR-100 through accelerate), 10 epochs

_VIT = [Config("vit_train_decorr", "vit-pytorch", ".", "train_vit_decorr.py", [], seed=True,
               env={"GD_BENCH_DATASET_LEN": "64"}, library=["."])]
# the README's models in a user's loop (real_pipelines_drivers/gd_bench_vit.py); distill: a DeiT-style
# student with a frozen teacher run under no_grad inside the repository's DistillWrapper
_VIT += [Config(f"vit_{kind}", "vit-pytorch", "images", "gd_bench_vit.py", ["--model", kind, "--steps", "8"],
                prepare=driver("gd_bench_vit.py"), library=["."], artifacts=["model.pt"])
         for kind in ("vit", "simple_vit", "cait", "deepvit", "cct", "mae", "simmim", "distill")]

# ---------------------------------------------------------------- lucidrains/denoising-diffusion-pytorch
# real_pipelines_drivers/gd_bench_diffusion.py: the README's loop, and the repository's Trainer/Trainer1D

_DIFFUSION = [Config(f"diffusion_{kind}", "denoising-diffusion", "images",
                     "gd_bench_diffusion.py", ["--kind", kind], library=["."],
                     prepare=driver("gd_bench_diffusion.py", prep_images_folder),
                     artifacts=["results/model-1.pt"] if kind.startswith("trainer") else [])
              for kind in ("loop", "trainer", "loop1d", "trainer1d")]

# ---------------------------------------------------------------- huggingface/peft
# real_pipelines_drivers/gd_bench_peft.py: adapters on tiny models built from configs (no download)

_PEFT = [Config(f"peft_{kind}", "peft", "examples/multilayer_perceptron", "gd_bench_peft.py", ["--kind", kind], library=["src"],
                prepare=driver("gd_bench_peft.py"), artifacts=["adapter/*.safetensors"], stubs=False)
         for kind in ("lora_causal", "lora_seqcls", "lora_checkpoint", "ia3", "prompt_tuning", "prefix_tuning")]

CONFIGS = _GAN + _YUNJEY + _IGNITE + _MAKEMORE_CONFIGS + _MORVAN + _VIT + _DIFFUSION + _PEFT
