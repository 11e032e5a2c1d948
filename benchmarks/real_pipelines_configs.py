"""The configurations of benchmarks/real_pipelines.py: script, tiny arguments, synthetic data.

A configuration copies `workdir` of its repository into a scratch folder,
lets `prepare` write the data the script would download (it may return extra
environment variables), and runs `script` there with `args`. `artifacts` are
globs of files the script saves (checkpoints, metric logs) that must be equal
between the two runs.
"""

from __future__ import annotations

import io
import pickle
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np
from PIL import Image


# The repositories, by the short name a configuration and the command line use.
REPOS = {
    "examples": "pytorch/examples",
    "nanogpt": "karpathy/nanoGPT",
    "mingpt": "karpathy/minGPT",
    "lightning": "Lightning-AI/pytorch-lightning",
    "accelerate": "huggingface/accelerate",
}


@dataclass
class Config:
    name: str
    repo: str  # a key of REPOS
    workdir: str
    script: str  # relative to `cwd`
    args: list = field(default_factory=list)
    prepare: Optional[Callable[[Path], Optional[dict]]] = None
    env: dict = field(default_factory=dict)
    pythonpath: list = field(default_factory=list)  # folders of the copied workdir put on PYTHONPATH
    artifacts: list = field(default_factory=list)
    loss_words: tuple = ("loss",)
    deterministic: bool = True
    timeout: Optional[float] = None
    cwd: str = ""  # the folder of the copied workdir both runs start in (scripts that read ../../data)
    # the script never seeds: seed torch, numpy and random at interpreter start (real_pipelines_seed/),
    # the same for both runs, so that their results can be compared
    seed: bool = False
    # folders of the repository itself (not copied) put on PYTHONPATH before the stand-ins: the
    # package an example imports from its own repository (ignite, vit_pytorch, timm, ...)
    library: list = field(default_factory=list)
    # the stand-ins on PYTHONPATH; off for scripts that need no download, where a stand-in
    # `torchvision` would only mislead a library that probes for it (transformers)
    stubs: bool = True


# ---------------------------------------------------------------- synthetic data

_WORDS = ("the of and to in a is that for it as was with be by on not he this are or his from at which but have "
          "an they you were her she there been one all we their has would when if so no will can more about said "
          "out up them into do time only some could new than two may first then other its over such our man any "
          "these also like where made how after back most way down did many before must through years much "
          "well").split()


def synthetic_text(n_words: int, seed: int = 0) -> str:
    """Learnable pseudo-English: each word mostly follows from the one before."""
    rng = np.random.default_rng(seed)
    follow = rng.integers(0, len(_WORDS), size=(len(_WORDS), 3))
    word, out = 0, []
    for i in range(n_words):
        word = int(follow[word, rng.integers(0, 3)]) if rng.random() < 0.9 else int(rng.integers(len(_WORDS)))
        out.append(_WORDS[word])
        if i % 12 == 11:
            out.append(".\n" if i % 48 == 47 else ",")
    return " ".join(out).replace(" ,", ",").replace(" .\n ", ".\n")


def _images(folder: Path, n: int, size: tuple, seed: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(n):
        arr = (rng.random((size[1], size[0], 3)) * 255).astype(np.uint8)
        Image.fromarray(arr).save(folder / f"img_{i:03d}.jpg")


def prep_wikitext(root: Path) -> None:
    """word_language_model's corpus, small: the snapshot lacks train.txt, and a tiny one trains fast."""
    data = root / "data" / "wikitext-2"
    data.mkdir(parents=True, exist_ok=True)
    for name, words, seed in (("train.txt", 4000, 1), ("valid.txt", 800, 2), ("test.txt", 800, 3)):
        (data / name).write_text(synthetic_text(words, seed))


def prep_sine(root: Path) -> None:
    """time_sequence_prediction's traindata.pt as generate_sine_wave.py makes it, 20 waves of 100 points."""
    import torch

    rng = np.random.RandomState(2)
    x = np.empty((20, 100), "int64")
    x[:] = np.array(range(100)) + rng.randint(-80, 80, 20).reshape(20, 1)
    torch.save(np.sin(x / 1.0 / 20).astype("float64"), root / "traindata.pt")


def prep_bsds(root: Path) -> None:
    base = root / "dataset" / "BSDS300" / "images"
    _images(base / "train", 16, (96, 96), 1)
    _images(base / "test", 4, (96, 96), 2)


def prep_style_dataset(root: Path) -> None:
    _images(root / "train_images" / "content", 8, (80, 64), 3)


def prep_cora(root: Path) -> dict:
    """A Cora-shaped citation graph: 1800 papers, 7 classes, class-dependent words, citations mostly within class."""
    rng = np.random.default_rng(5)
    n, words, classes = 1800, 200, 7
    labels = rng.integers(0, classes, n)
    topic = rng.random((classes, words)) < 0.08
    feats = (rng.random((n, words)) < 0.02) | (topic[labels] & (rng.random((n, words)) < 0.5))
    ids = rng.permutation(np.arange(1000, 1000 + 10 * n, 10))[:n]
    content = "\n".join(f"{ids[i]}\t" + "\t".join(map(str, feats[i].astype(int))) + f"\tClass_{labels[i]}"
                        for i in range(n)) + "\n"
    cites = []
    for i in range(n):
        for _ in range(2):
            same = np.flatnonzero(labels == labels[i]) if rng.random() < 0.8 else np.arange(n)
            cites.append(f"{ids[i]}\t{ids[rng.choice(same)]}")
    tgz = root.parent / f"{root.name}-cora.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        for name, text in (("cora/cora.content", content), ("cora/cora.cites", "\n".join(cites) + "\n")):
            blob = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    return {"GD_BENCH_URLS": f"https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz={tgz}"}


def prep_cora_local(root: Path) -> dict:
    """gat reads ./cora when it exists; gcn always downloads (served by the requests stand-in)."""
    env = prep_cora(root)
    with tarfile.open(env["GD_BENCH_URLS"].split("=", 1)[1]) as tar:
        tar.extractall(root)
    return env


def prep_nanogpt_char(root: Path) -> None:
    text = synthetic_text(40000, 7)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    data = root / "data" / "shakespeare_char"
    split = int(len(ids) * 0.9)
    ids[:split].tofile(data / "train.bin")
    ids[split:].tofile(data / "val.bin")
    with open(data / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}, f)


def prep_nanogpt_bpe(root: Path) -> None:
    """data/shakespeare as GPT-2 token ids (no meta.pkl: nanoGPT uses the 50304-token vocabulary)."""
    rng = np.random.default_rng(8)
    vocab = rng.choice(50257, size=len(_WORDS), replace=False)
    words = synthetic_text(60000, 9).split()
    ids = np.array([vocab[_WORDS.index(w.strip(".,\n"))] if w.strip(".,\n") in _WORDS else 13 for w in words],
                   dtype=np.uint16)
    data = root / "data" / "shakespeare"
    split = int(len(ids) * 0.9)
    ids[:split].tofile(data / "train.bin")
    ids[split:].tofile(data / "val.bin")


def prep_chargpt(root: Path) -> None:
    # chargpt samples from the context "O God, O God!" every 10 iterations: its characters must be in the text
    (root / "input.txt").write_text("O God, O God!\n" + synthetic_text(20000, 11))


def prep_lightning_wikitext(root: Path) -> None:
    """lightning.pytorch.demos.WikiText2 reads ./data/wikitext-2.txt; 4000 blocks go to val/test, so ~145k tokens."""
    (root / "data").mkdir(exist_ok=True)
    (root / "data" / "wikitext-2.txt").write_text(synthetic_text(133000, 13))


def prep_pets(root: Path) -> None:
    """accelerate's cv examples read Oxford-pets style files, NAME_N.jpg, the label being NAME."""
    folder = root / "pets"
    folder.mkdir()
    rng = np.random.default_rng(17)
    for label, tint in (("abyssinian", (200, 120, 60)), ("beagle", (60, 90, 200))):
        for i in range(10):
            arr = np.clip(rng.normal(tint, 40, (72, 64, 3)), 0, 255).astype(np.uint8)
            Image.fromarray(arr).save(folder / f"{label}_{i}.jpg")


def prep_lightning_datasets(root: Path) -> None:
    """The examples build a path to a `Datasets` folder above themselves; the stand-in MNIST needs no files.

    The LightningCLI examples split MNIST as [55000, 5000]: they run with all 60000 samples (6 batches used).
    """
    (root / "Datasets").mkdir(exist_ok=True)


# ---------------------------------------------------------------- configurations
# accelerate's other examples need `datasets`, `evaluate` and a downloaded BERT; its
# test_utils/scripts (test_sync.py, test_script.py) are test harnesses that step optimizers
# without zero_grad and keep models without optimizers on purpose, not training programs.

_PL = ["--trainer.max_epochs=1", "--trainer.limit_train_batches=6", "--trainer.limit_val_batches=2",
       "--trainer.limit_test_batches=2", "--trainer.accelerator=cpu", "--trainer.enable_progress_bar=false",
       "--data.batch_size=32"]

_WLM = ["--epochs", "1", "--emsize", "32", "--nhid", "32", "--nlayers", "2", "--bptt", "20", "--batch_size", "10",
        "--log-interval", "5", "--save", "model.pt"]

_NANO = ["--device=cpu", "--compile=False", "--eval_iters=2", "--eval_interval=10", "--log_interval=1",
         "--block_size=32", "--batch_size=4", "--n_layer=2", "--n_head=2", "--n_embd=32", "--max_iters=20",
         "--lr_decay_iters=20", "--warmup_iters=4", "--dropout=0.0", "--always_save_checkpoint=True"]

_MINGPT = ["--trainer.max_iters=30", "--trainer.num_workers=0", "--trainer.batch_size=16", "--trainer.device=cpu",
           "--model.model_type=gpt-nano"]

CONFIGS = [
    # pytorch/examples
    Config("mnist", "examples", "mnist", "main.py",
           ["--epochs", "1", "--log-interval", "2", "--save-model", "--no-accel"], artifacts=["mnist_cnn.pt"]),
    Config("mnist_hogwild_1proc", "examples", "mnist_hogwild", "main.py",
           ["--epochs", "1", "--num-processes", "1", "--log-interval", "2"]),
    Config("mnist_hogwild_2proc", "examples", "mnist_hogwild", "main.py",
           ["--epochs", "1", "--num-processes", "2", "--log-interval", "2"], deterministic=False),
    Config("mnist_rnn", "examples", "mnist_rnn", "main.py",
           ["--epochs", "1", "--log-interval", "2", "--save-model"], artifacts=["mnist_rnn.pt"]),
    # forward-forward parses --seed but never seeds torch: its weights differ from run to run
    Config("mnist_forward_forward", "examples", "mnist_forward_forward", "main.py",
           ["--epochs", "20", "--train_size", "256", "--test_size", "128", "--log-interval", "5", "--no_accel"],
           deterministic=False),
    Config("vae", "examples", "vae", "main.py", ["--epochs", "1", "--log-interval", "2", "--no-accel"]),
    Config("dcgan_fake", "examples", "dcgan", "main.py",
           ["--dataset", "fake", "--imageSize", "64", "--batchSize", "16", "--niter", "1", "--ngf", "8", "--ndf", "8",
            "--nz", "16", "--workers", "0", "--manualSeed", "1", "--outf", "out"],
           env={"GD_BENCH_DATASET_LEN": "64"}, prepare=lambda r: (r / "out").mkdir() and None,
           artifacts=["out/*.pth"], loss_words=("Loss_D", "Loss_G")),
    Config("dcgan_mnist", "examples", "dcgan", "main.py",
           ["--dataset", "mnist", "--dataroot", "data", "--imageSize", "64", "--batchSize", "16", "--niter", "1",
            "--ngf", "8", "--ndf", "8", "--nz", "16", "--workers", "0", "--manualSeed", "2", "--outf", "out"],
           env={"GD_BENCH_DATASET_LEN": "64"}, prepare=lambda r: (r / "out").mkdir() and None,
           artifacts=["out/*.pth"], loss_words=("Loss_D", "Loss_G")),
    Config("word_language_model_lstm", "examples", "word_language_model", "main.py", _WLM + ["--model", "LSTM"],
           prepare=prep_wikitext, artifacts=["model.pt"]),
    Config("word_language_model_gru_tied", "examples", "word_language_model", "main.py",
           _WLM + ["--model", "GRU", "--tied"], prepare=prep_wikitext, artifacts=["model.pt"]),
    Config("word_language_model_rnn_tanh", "examples", "word_language_model", "main.py",
           _WLM + ["--model", "RNN_TANH", "--lr", "5"], prepare=prep_wikitext, artifacts=["model.pt"]),
    Config("word_language_model_transformer", "examples", "word_language_model", "main.py",
           _WLM + ["--model", "Transformer", "--nhead", "2", "--lr", "5"], prepare=prep_wikitext,
           artifacts=["model.pt"]),
    Config("word_language_model_lstm_adamw", "examples", "word_language_model", "main.py",
           _WLM + ["--model", "LSTM", "--use-optimizer", "--lr", "0.002"], prepare=prep_wikitext,
           artifacts=["model.pt"]),
    # train.py torch.loads a pickled numpy array, which torch >= 2.6 refuses by default (weights_only)
    Config("time_sequence_prediction", "examples", "time_sequence_prediction", "train.py", ["--steps", "2"],
           prepare=prep_sine, env={"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}),
    # regression/main.py draws its target function with torch.randn and never seeds: runs differ by design
    Config("regression", "examples", "regression", "main.py", [], deterministic=False),
    Config("reinforce", "examples", "reinforcement_learning", "reinforce.py", ["--log-interval", "1"],
           env={"GD_BENCH_REWARD_THRESHOLD": "20"}, loss_words=("reward",)),
    Config("actor_critic", "examples", "reinforcement_learning", "actor_critic.py", ["--log-interval", "1"],
           env={"GD_BENCH_REWARD_THRESHOLD": "20"}, loss_words=("reward",)),
    Config("super_resolution", "examples", "super_resolution", "main.py",
           ["--upscale_factor", "3", "--batchSize", "4", "--testBatchSize", "4", "--nEpochs", "2", "--lr", "0.001",
            "--threads", "0"], prepare=prep_bsds, artifacts=["model_epoch_2.pth"]),
    # no --style-size: utils.load_image then calls Image.ANTIALIAS, which Pillow 10 removed
    Config("fast_neural_style", "examples", "fast_neural_style", "neural_style/neural_style.py",
           ["train", "--dataset", "train_images", "--style-image", "images/style-images/mosaic.jpg",
            "--save-model-dir", "saved", "--epochs", "1", "--batch-size", "2", "--image-size", "64",
            "--log-interval", "1", "--checkpoint-interval", "1000"],
           prepare=prep_style_dataset, artifacts=["saved/*.model"]),
    # siamese_network draws its pairs with Python's `random`, which it never seeds. It redraws a
    # positive pair's second image until it differs from the first: a class with one image loops
    # forever (the stand-in's 32 test images had one of class 6, so both runs hung): 72 test images,
    # at least 3 of each class
    Config("siamese_network", "examples", "siamese_network", "main.py",
           ["--epochs", "1", "--batch-size", "16", "--log-interval", "2", "--no-accel"],
           env={"GD_BENCH_DATASET_LEN": "64", "GD_BENCH_DATASET_LEN_TEST": "72"}, deterministic=False, timeout=400),
    Config("gcn", "examples", "gcn", "main.py", ["--epochs", "30", "--val-every", "5", "--no-accel"],
           prepare=prep_cora),
    Config("gat", "examples", "gat", "main.py",
           ["--epochs", "20", "--val-every", "5", "--hidden-dim", "16", "--num-heads", "2", "--no-accel"],
           prepare=prep_cora_local),
    Config("imagenet_resnet18_dummy", "examples", "imagenet", "main.py",
           ["--dummy", "-a", "resnet18", "--epochs", "1", "-b", "8", "-j", "0", "--print-freq", "1", "--seed", "1",
            "--no-accel"], env={"GD_BENCH_DATASET_LEN": "16"}, artifacts=["checkpoint.pth.tar"]),
    # karpathy/nanoGPT
    Config("nanogpt_shakespeare_char", "nanogpt", ".", "train.py",
           ["config/train_shakespeare_char.py"] + _NANO + ["--out_dir=out", "--dtype=float32",
                                                           "--gradient_accumulation_steps=1"],
           prepare=prep_nanogpt_char, artifacts=["out/ckpt.pt"]),
    Config("nanogpt_char_grad_accum", "nanogpt", ".", "train.py",
           ["config/train_shakespeare_char.py"] + _NANO + ["--out_dir=out", "--dtype=float32",
                                                           "--gradient_accumulation_steps=4"],
           prepare=prep_nanogpt_char, artifacts=["out/ckpt.pt"]),
    Config("nanogpt_char_float16_scaler", "nanogpt", ".", "train.py",
           ["config/train_shakespeare_char.py"] + _NANO + ["--out_dir=out", "--dtype=float16",
                                                           "--gradient_accumulation_steps=2"],
           prepare=prep_nanogpt_char, artifacts=["out/ckpt.pt"]),
    Config("nanogpt_shakespeare_bpe", "nanogpt", ".", "train.py",
           _NANO + ["--dataset=shakespeare", "--out_dir=out", "--dtype=float32", "--gradient_accumulation_steps=1",
                    "--bias=True"],
           prepare=prep_nanogpt_bpe, artifacts=["out/ckpt.pt"]),
    # karpathy/minGPT
    Config("mingpt_chargpt", "mingpt", ".", "projects/chargpt/chargpt.py",
           _MINGPT + ["--data.block_size=32"], prepare=prep_chargpt, pythonpath=["."]),
    Config("mingpt_adder", "mingpt", ".", "projects/adder/adder.py", _MINGPT, pythonpath=["."]),
    # Lightning
    Config("lightning_backbone_image_classifier", "lightning", "examples",
           "pytorch/basics/backbone_image_classifier.py",
           _PL + ["--trainer.default_root_dir=pl"], prepare=prep_lightning_datasets,
           env={"GD_BENCH_DATASET_LEN": "60000"},
           artifacts=["pl/lightning_logs/version_0/metrics.csv", "pl/lightning_logs/version_0/checkpoints/*.ckpt"]),
    Config("lightning_autoencoder", "lightning", "examples", "pytorch/basics/autoencoder.py",
           _PL + ["--trainer.default_root_dir=pl"], prepare=prep_lightning_datasets,
           env={"GD_BENCH_DATASET_LEN": "60000"},
           artifacts=["pl/lightning_logs/version_0/metrics.csv", "pl/lightning_logs/version_0/checkpoints/*.ckpt"]),
    # bug_report_model.py never seeds: its random data and weights differ from run to run
    Config("lightning_bug_report_model", "lightning", "examples", "pytorch/bug_report/bug_report_model.py", [],
           deterministic=False,
           artifacts=["lightning_logs/version_0/metrics.csv", "lightning_logs/version_0/checkpoints/*.ckpt"]),
    Config("lightning_transformer", "lightning", "examples", "pytorch/basics/transformer.py", [],
           prepare=prep_lightning_wikitext, timeout=400,
           artifacts=["lightning_logs/version_0/metrics.csv", "lightning_logs/version_0/checkpoints/*.ckpt"]),
    Config("fabric_image_classifier", "lightning", "examples", "fabric/image_classifier/train_fabric.py",
           ["--epochs", "1", "--log-interval", "2", "--save-model"], prepare=prep_lightning_datasets,
           artifacts=["mnist_cnn.pt"]),
    Config("fabric_image_classifier_torch", "lightning", "examples", "fabric/image_classifier/train_torch.py",
           ["--epochs", "1", "--log-interval", "2", "--save-model"], prepare=prep_lightning_datasets,
           artifacts=["mnist_cnn.pt"]),
    Config("fabric_language_model", "lightning", "examples", "fabric/language_model/train.py", [],
           prepare=prep_lightning_wikitext, timeout=400),
    Config("fabric_build_your_own_trainer", "lightning", "examples/fabric/build_your_own_trainer", "run.py", []),
    # accelerate
    Config("accelerate_cv_example", "accelerate", "examples", "cv_example.py", ["--data_dir", "pets", "--cpu"],
           prepare=prep_pets, loss_words=(r"epoch \d+",), timeout=400),
    Config("accelerate_complete_cv_example", "accelerate", "examples", "complete_cv_example.py",
           ["--data_dir", "pets", "--cpu", "--checkpointing_steps", "epoch", "--output_dir", "out"],
           prepare=prep_pets, loss_words=(r"epoch \d+",), timeout=400,
           # random_states_0.pkl is left out: the script seeds numpy and torch but never Python's `random`,
           # whose state comes from os.urandom, so it differs between any two runs, `python` against `python` too.
           artifacts=["out/epoch_2/*.safetensors", "out/epoch_2/*.bin"]),
]
