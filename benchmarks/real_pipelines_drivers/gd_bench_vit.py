"""Train one of vit-pytorch's models as its README shows, on a small synthetic image set.

Driver of benchmarks/real_pipelines.py (copied into the scratch folder): the models and their
losses are the repository's; the loop is the one the README leaves to the user.
"""

import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="vit")
parser.add_argument("--steps", type=int, default=16)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
torch.manual_seed(args.seed)

# 10 classes, each a fixed random image plus noise: a set a model can learn
prototypes = torch.randn(10, 3, 32, 32)
labels = torch.randint(0, 10, (256,))
images = prototypes[labels] + 0.5 * torch.randn(256, 3, 32, 32)
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)

small = dict(image_size=32, patch_size=4, num_classes=10, dim=64, depth=2, heads=4, mlp_dim=128)
if args.model == "vit":
    from vit_pytorch import ViT
    model = ViT(**small, dropout=0.1, emb_dropout=0.1)
elif args.model == "simple_vit":
    from vit_pytorch import SimpleViT
    model = SimpleViT(**small)
elif args.model == "cait":
    from vit_pytorch.cait import CaiT
    model = CaiT(**small, cls_depth=1, dropout=0.1, emb_dropout=0.1, layer_dropout=0.05)
elif args.model == "deepvit":
    from vit_pytorch.deepvit import DeepViT
    model = DeepViT(**small, dropout=0.1, emb_dropout=0.1)
elif args.model == "cct":
    from vit_pytorch.cct import CCT
    model = CCT(img_size=32, embedding_dim=64, n_conv_layers=1, kernel_size=3, stride=1, padding=1,
                pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, num_layers=2, num_heads=4,
                mlp_ratio=2., num_classes=10, positional_embedding="learnable")
elif args.model in ("mae", "simmim"):
    from vit_pytorch import ViT
    # pool="mean": this snapshot's MAE indexes pos_embedding[:, 1:n + 1] for a "cls" encoder, whose
    # pos_embedding has lost its batch dimension (a broadcast error under plain python)
    encoder = ViT(**small, pool="mean")
    if args.model == "mae":
        from vit_pytorch import MAE
        model = MAE(encoder=encoder, masking_ratio=0.75, decoder_dim=32, decoder_depth=1)
    else:
        from vit_pytorch.simmim import SimMIM
        model = SimMIM(encoder=encoder, masking_ratio=0.5)
elif args.model == "distill":
    from torchvision.models import resnet18
    from vit_pytorch.distill import DistillableViT, DistillWrapper
    teacher = resnet18(num_classes=10).eval()
    student = DistillableViT(**small, dropout=0.1, emb_dropout=0.1)
    model = DistillWrapper(student=student, teacher=teacher, temperature=3, alpha=0.5, hard=False)
else:
    raise SystemExit(f"unknown model {args.model}")

optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
step = 0
while step < args.steps:
    for x, y in loader:
        if args.model in ("mae", "simmim"):
            loss = model(x)
        elif args.model == "distill":
            loss = model(x, y)
        else:
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.6f}")
        step += 1
        if step == args.steps:
            break
torch.save(model.state_dict(), "model.pt")
