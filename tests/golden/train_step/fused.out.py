import shims


def train(model, disc, loader, opt_g, opt_d):
    for real, z in loader:
        # discriminator step
        opt_d.zero_grad()
        d_loss = disc(real).mean() - disc(model(z)).mean()
        d_loss.backward()
        opt_d.step()

        # generator step
        opt_g.step(-disc(model(z)).mean())  # MCCNet's three lines become one
