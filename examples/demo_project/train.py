"""Train SmallCNN on the stripes for a few epochs with Adam; save a checkpoint."""
import torch
import torch.nn as nn

from data import make_loader
from model import SmallCNN


def main(epochs=3, lr=1e-2):
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SmallCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(epochs):
        total, steps = 0.0, 0
        for images, labels in make_loader():
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            steps += 1
        print(f"epoch {epoch}: mean loss {total / steps:.4f}")
    torch.save(model.state_dict(), "demo_model.pth")
    print("saved demo_model.pth")


if __name__ == "__main__":
    main()
