for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).item().backward()  # the tensor is rebuilt exactly
    optimizer.step()
