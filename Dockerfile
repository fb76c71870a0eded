# Builds the controller image from a jar built by ./mvnw package (docker-compose.yml uses it).
FROM eclipse-temurin:17-jre
RUN useradd --system --home /var/lib/gantry gantry && mkdir -p /var/lib/gantry && chown gantry /var/lib/gantry
USER gantry
WORKDIR /var/lib/gantry
COPY target/gantry.jar /opt/gantry/gantry.jar
EXPOSE 8080
ENTRYPOINT ["java", "-jar", "/opt/gantry/gantry.jar", "--gantry.data-dir=/var/lib/gantry"]
