// In-process Swift components registered into a host.
